/**
 * Regression tests for the token-trade methodology rules (issue 9): each builds the crafted samples
 * or provider answers that showed the defect and checks the published number.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { runHarnessCli } from '../../src/cli/harness-cli.ts';
import { windowRows } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { fixture, H, NOW } from '../helpers/fixture.ts';

const BENCH = 'token-trade-coverage';

/** The samples one cycle writes for one provider on one cell (as the harness writes them). */
function scored(
  provider: string,
  chain: string,
  token: string,
  t: number,
  c: { count: number; max: number; union?: number; probe?: number },
): Sample[] {
  const labels = { provider, chain, token };
  return [
    { metric: METRICS.tokenTradeCapturePct, labels, t, v: (c.count / c.max) * 100 },
    { metric: METRICS.tokenTradeCount, labels, t, v: c.count },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: c.probe ?? 1 },
  ];
}
const union = (chain: string, token: string, t: number, v: number): Sample => ({
  metric: METRICS.tokenTradeUnionCount,
  labels: { chain, token },
  t,
  v,
});

describe('rule 1: fair aggregation across cells', () => {
  // B beats A on every shared cell; A is alone on three more cells (100% there by construction).
  // Pooled, A's p50 would be 100 (90, 90, 100, 100, 100), tie B's and win the tie on its larger
  // sampleSize: the data crowns the wrong provider unless lone cells stay out.
  const samples: Sample[] = [];
  for (const t of [NOW - 3 * H, NOW - 2 * H, NOW - H]) {
    for (const [chain, token] of [
      ['solana', 'BONK'],
      ['ethereum', 'PEPE'],
    ] as const) {
      samples.push(...scored('bitquery', chain, token, t, { count: 100, max: 100 }));
      samples.push(...scored('mobula', chain, token, t, { count: 90, max: 100 }));
      samples.push(union(chain, token, t, 100));
    }
    for (const token of ['yXLM', 'SHX']) {
      samples.push(...scored('mobula', 'stellar', token, t, { count: 50, max: 50 }));
      samples.push(union('stellar', token, t, 50));
    }
    // Bitquery's key was refused on Base this cycle (written nothing): Mobula is alone there.
    samples.push(...scored('mobula', 'base', 'BRETT', t, { count: 70, max: 70 }));
    samples.push(union('base', 'BRETT', t, 70));
  }

  it('B leads the unfiltered ranking; cells only A measured stay out of the aggregate', async () => {
    // Three cycles: this rule, not the minimum sample count, is under test.
    const f = await fixture({ samples, minSamples: 1 });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings.map((r) => [r.slug, r.rank, r.ms.p50, r.sampleSize])).toEqual([
      ['bitquery', 1, 100, 6],
      ['mobula', 2, 90, 6],
    ]);
    expect(stat.leader?.slug).toBe('bitquery');
    // The sparkline aggregates cells too: Stellar's 100s never enter it.
    expect(new Set(stat.sparkline)).toEqual(new Set([100]));
    await f.close();
  });

  it('with ?chain=stellar the single-provider row is shown with noComparison, never ranked', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, { chain: 'stellar' });
    expect(stat.rankings).toHaveLength(1);
    // Six lone captures, none compared: no sample counts (the row's audit has no comparable entry).
    expect(stat.rankings[0]).toMatchObject({ slug: 'mobula', rank: null, noComparison: true, sampleSize: 0 });
    expect(stat.leader).toBeNull();
    expect(stat.value).toBeNull();
    expect(stat.sparkline).toEqual([]);
    await f.close();
  });

  it('applies per (cell, cycle): a cycle in which one provider alone measured a cell does not count', () => {
    const c = (provider: string, t: number, v: number): Sample => ({
      metric: 'c',
      labels: { provider, chain: 'solana', token: 'BONK' },
      t,
      v,
    });
    const rows = windowRows(
      [
        { slug: 'mobula', endpoint: 'x' },
        { slug: 'codex', endpoint: 'x' },
      ],
      {
        cellLabels: ['chain', 'token'],
        values: [c('mobula', 1, 100), c('codex', 1, 50), c('mobula', 2, 100)],
        probes: [],
      },
    );
    expect(rows.map((r) => [r.slug, r.sampleSize, r.ms.mean])).toEqual([
      ['mobula', 1, 100],
      ['codex', 1, 50],
    ]);
  });
});

describe("rule 6: the union baseline beside the spec's", () => {
  it('each ranking row carries unionCapture and each audit cell unionCapturePct', async () => {
    const t = NOW - H;
    // Union of distinct transactions is 125 on BONK; mobula returned 100, codex 80.
    const f = await fixture({
      samples: [
        ...scored('mobula', 'solana', 'BONK', t, { count: 100, max: 100 }),
        ...scored('codex', 'solana', 'BONK', t, { count: 80, max: 100 }),
        union('solana', 'BONK', t, 125),
      ],
      // One cycle: the union baseline, not the minimum sample count, is under test.
      minSamples: 1,
    });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings.map((r) => [r.slug, r.ms.p50, r.unionCapture])).toEqual([
      ['mobula', 100, { p50: 80, mean: 80 }],
      ['codex', 80, { p50: 64, mean: 64 }],
    ]);
    // The headline value stays the spec's (largest observed count).
    expect(stat.value).toBe(100);
    const audit = await f.publication.audit(BENCH, 'codex');
    expect(audit?.value.cells).toEqual([
      {
        chain: 'solana',
        token: 'BONK',
        count: 80,
        unionCount: 125,
        capturePct: 80,
        unionCapturePct: 64,
        probeOk: true,
        capped: null,
        // Stored before truth was read (or never read): said, never a number.
        groundTruth: {
          status: 'unavailable',
          reason: 'not-recorded',
          count: null,
          recallPct: null,
          unmatched: null,
          phantoms: null,
          fromBlock: null,
          toBlock: null,
        },
      },
    ]);
    await f.close();
  });
});

describe('rule 11: a partial run never publishes', () => {
  const benchmarksDir = new URL('../../benchmarks', import.meta.url).pathname;

  it('--provider without --data-dir prints what it measured and opens no database', async () => {
    const opened: string[] = [];
    const out: string[] = [];
    const err: string[] = [];
    const { startSimulator } = await import('../../src/sim/server.ts');
    const { simulatorEnv } = await import('../../src/harness/config.ts');
    const sim = await startSimulator({ seed: 3, tradesPerHour: 60 });
    try {
      const code = await runHarnessCli(['run', BENCH, '--once', '--provider', 'mobula'], {
        env: {
          BENCHMARKS_DIR: benchmarksDir,
          DATA_DIR: '/tmp/live',
          ...simulatorEnv(sim.baseUrls, sim.keys),
        },
        out: (s) => out.push(s),
        err: (s) => err.push(s),
        openStore: async (dir) => {
          opened.push(dir);
          return createMemoryStore();
        },
        now: () => Date.UTC(2026, 6, 23, 12, 10),
      });
      expect(code).toBe(0);
      expect(opened).toEqual([]);
      expect(err.join('\n')).toContain('nothing written');
      expect(out.join('\n')).toContain('solana/BONK');
      // Pointed at the live DATA_DIR explicitly: refused.
      const refused = await runHarnessCli(
        ['run', BENCH, '--once', '--provider', 'mobula', '--data-dir', '/tmp/live/'],
        { env: { BENCHMARKS_DIR: benchmarksDir, DATA_DIR: '/tmp/live' }, out: () => {}, err: () => {} },
      );
      expect(refused).toBe(2);
      // Another folder: written there.
      const elsewhere = await runHarnessCli(
        ['run', BENCH, '--once', '--provider', 'mobula', '--data-dir', '/tmp/scratch'],
        {
          env: {
            BENCHMARKS_DIR: benchmarksDir,
            DATA_DIR: '/tmp/live',
            ...simulatorEnv(sim.baseUrls, sim.keys),
          },
          out: () => {},
          err: () => {},
          openStore: async (dir) => {
            opened.push(dir);
            return createMemoryStore();
          },
          now: () => Date.UTC(2026, 6, 23, 12, 10),
        },
      );
      expect(elsewhere).toBe(0);
      expect(opened).toEqual(['/tmp/scratch']);
    } finally {
      await sim.close();
    }
  });
});

describe('rule 13: engines say what the code needs', () => {
  // The README's two commands install every locked package and run the tests, so the declared
  // minimum must satisfy each locked package's own engines (vite under vitest 4: ^20.19.0), and
  // the Node APIs src/ uses (AbortSignal.any 20.3, import.meta.dirname 20.11).
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } }>;
  };
  const minimum = semver.minVersion(pkg.engines.node as string);

  it('the declared minimum satisfies every locked package that states a Node range', () => {
    expect(minimum).not.toBeNull();
    const unmet = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines?.node !== undefined)
      .filter(([, p]) => !semver.satisfies(minimum as semver.SemVer, p.engines?.node as string))
      .map(([path, p]) => `${path} ${p.engines?.node}`);
    expect(unmet).toEqual([]);
    expect(lock.packages['']?.engines?.node).toBe(pkg.engines.node);
  });

  it('the declared minimum has the Node APIs the code calls', () => {
    expect(semver.gte(minimum as semver.SemVer, '20.11.0')).toBe(true);
    expect(semver.satisfies(process.versions.node, pkg.engines.node as string)).toBe(true);
  });
});
