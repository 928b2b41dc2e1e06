import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHarnessCli } from '../../src/cli/harness-cli.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';

const benchmarksDir = new URL('../../benchmarks', import.meta.url).pathname;

async function cli(args: string[], env: Record<string, string> = {}, opened: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runHarnessCli(args, {
    env: { BENCHMARKS_DIR: benchmarksDir, ...env },
    openStore: async (dir) => {
      opened.push(dir);
      return createMemoryStore();
    },
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

  it("--simulate reads EVM cells from demo chains and prints each cell's truth and recall", async () => {
    const r = await cli(['run', 'token-trade-coverage', '--once', '--simulate']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/truth\s+recall%\s+unmatched/);
    // An EVM cell: |T_fin| and each provider's recall against it.
    expect(r.out).toMatch(/^ethereum\/PEPE\s+codex\s+ok\s+\d+\s+[\d.]+\s+\d+\s+\d+\s+\d+\.\d\s+\d+/m);
    // Solana has no reference node: said, never a count.
    expect(r.out).toMatch(/^solana\/BONK\s+codex\s+ok\s+\d+\s+[\d.]+\s+\d+\s+no-reference-node\s/m);
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

describe('harness CLI: --provider never writes into the live DATA_DIR', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  async function tmp(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'citebench-cli-'));
    dirs.push(d);
    return d;
  }
  const partial = (dataDir: string) => [
    'run',
    'token-trade-coverage',
    '--once',
    '--provider',
    'mobula',
    '--data-dir',
    dataDir,
  ];

  it('refuses a symlink to DATA_DIR', async () => {
    const d = await tmp();
    await mkdir(join(d, 'live'));
    await symlink(join(d, 'live'), join(d, 'alias'));
    const opened: string[] = [];
    const r = await cli(partial(join(d, 'alias')), { DATA_DIR: join(d, 'live') }, opened);
    expect(r.code).toBe(2);
    expect(r.err).toContain('never writes into the live DATA_DIR');
    expect(opened).toEqual([]);
  });

  it('refuses a DATA_DIR that does not exist yet, reached through a symlinked parent', async () => {
    const d = await tmp();
    await mkdir(join(d, 'real'));
    await symlink(join(d, 'real'), join(d, 'alias'));
    const opened: string[] = [];
    const r = await cli(partial(join(d, 'alias', 'data')), { DATA_DIR: join(d, 'real', 'data') }, opened);
    expect(r.code).toBe(2);
    expect(r.err).toContain('never writes into the live DATA_DIR');
    expect(opened).toEqual([]);
  });

  it("takes `link/..` as the link target's parent on disk, not the folder holding the link", async () => {
    const d = await tmp();
    await mkdir(join(d, 'a', 'live'), { recursive: true });
    await mkdir(join(d, 'b'));
    // b/link/.. is a/ on disk; lexically it would be b/.
    await symlink(join(d, 'a', 'live'), join(d, 'b', 'link'));
    const r = await cli(partial(`${join(d, 'b', 'link')}/../live`), { DATA_DIR: join(d, 'a', 'live') });
    expect(r.code).toBe(2);
    expect(r.err).toContain('never writes into the live DATA_DIR');
  });

  it('writes to another folder that does not exist yet', async () => {
    const d = await tmp();
    await mkdir(join(d, 'live'));
    const opened: string[] = [];
    const r = await cli(partial(join(d, 'other')), { DATA_DIR: join(d, 'live') }, opened);
    expect(r.err).not.toContain('never writes into the live DATA_DIR');
    expect(opened).toEqual([join(d, 'other')]);
  });

  it('a --data-dir that cannot be resolved is a clear error, not a stack trace', async () => {
    const d = await tmp();
    await symlink(join(d, 'loop-b'), join(d, 'loop-a'));
    await symlink(join(d, 'loop-a'), join(d, 'loop-b'));
    const opened: string[] = [];
    const r = await cli(partial(join(d, 'loop-a')), { DATA_DIR: join(d, 'live') }, opened);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^harness: cannot resolve --data-dir .*loop-a: ELOOP/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(opened).toEqual([]);
  });
});
