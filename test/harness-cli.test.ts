import { describe, expect, it } from 'vitest';
import { runHarnessCli } from '../src/cli/harness-cli.ts';

const benchmarksDir = new URL('../benchmarks', import.meta.url).pathname;

async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runHarnessCli(args, {
    env: { BENCHMARKS_DIR: benchmarksDir, ...env },
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    now: () => Date.UTC(2026, 6, 23, 12, 10),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('harness CLI', () => {
  it('runs one simulated network-coverage cycle and prints a table', async () => {
    const r = await cli(['run', 'network-coverage', '--once', '--simulate', '--seed', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('network-coverage @ 2026-07-23T12:00:00.000Z');
    for (const p of [
      'geckoterminal',
      'codex',
      'mobula',
      'coinpaprika',
      'coingecko',
      'coinstats',
      'covalent',
      'sim-dune',
    ]) {
      expect(r.out).toMatch(new RegExp(`^${p}\\s+ok\\s+\\d+`, 'm'));
    }
  });

  it('restricts to --provider and reports progress per cell', async () => {
    const r = await cli([
      'harness',
      'run',
      'token-trade-coverage',
      '--once',
      '--simulate',
      '--provider',
      'mobula',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('stellar/SHX');
    expect(r.out).not.toContain('bitquery');
    expect(r.err).toContain('[10/10]');
  });

  it('rejects unknown benchmarks, providers and options with exit code 2', async () => {
    expect((await cli(['run', 'nope', '--once'])).code).toBe(2);
    expect((await cli(['run', 'network-coverage', '--provider', 'bitquery'])).code).toBe(2);
    expect((await cli(['run', 'network-coverage', '--frobnicate'])).code).toBe(2);
    expect(
      (await cli(['run', 'network-coverage', '--simulate', '--once'], { HARNESS_TIMEOUT_MS: 'soon' })).code,
    ).toBe(2);
  });

  it('exits 1 when no measured provider answered', async () => {
    const r = await cli(['run', 'network-coverage', '--once', '--dry-run', '--provider', 'geckoterminal'], {
      GECKOTERMINAL_BASE_URL: 'http://127.0.0.1:9',
      HARNESS_TIMEOUT_MS: '500',
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/geckoterminal\s+failed/);
  });
});
