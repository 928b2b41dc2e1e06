import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prng } from '../../src/core/prng.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { type Outcome, samplesOf } from '../../src/harness/families/json-rpc/probe.ts';
import { seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { computeStat } from '../../src/publication/compute.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 20, 0, 0);
const series = (provider: string) => ({
  provider,
  chain: 'ethereum',
  kind: 'block-number' as const,
  offsetMs: seriesOffset(provider, 'ethereum', 'block-number', 0),
});

describe('scripts/recompute-ci.py recomputes the reliability order', () => {
  it('finds the provider failing 20% of its probes less reliable than the one answering all, as published', async () => {
    const latency = (await loadSpecs(BENCHMARKS_DIR)).find((s) => s.slug === 'rpc-latency') as BenchmarkSpec;
    const store = createMemoryStore();
    const u = prng(3);
    for (let i = 0; i < 200; i++) {
      const slot: Outcome[] = [
        u() < 0.2
          ? { series: series('alchemy'), ok: false, reason: 'timeout' }
          : { series: series('alchemy'), ok: true, ms: 40 },
        { series: series('infura'), ok: true, ms: 50 },
      ];
      await store.append(samplesOf(slot, T0 + i * MIN, 10_000, 60_000));
    }
    const at = T0 + 200 * MIN;
    const stat = await computeStat(store, latency, null, at, { baseUrl: 'http://x', name: 'x' });
    expect(stat.rankings[1]?.lessReliableThan).toEqual(['infura']);
    // The dataset's columns the script reads: one row per sample.
    const lines = ['metric,chain,kind,provider,region,reason,timestamp,value'];
    for (const metric of [M.latencyMs, M.probeOk])
      for (const x of await store.select({ metric, after: 0, until: at })) {
        const l = x.labels;
        lines.push([metric, l.chain, l.kind, l.provider, '', l.reason ?? '', x.t, x.v].join(','));
      }
    const dir = await mkdtemp(join(tmpdir(), 'citebench-reliability-'));
    try {
      await writeFile(join(dir, 'day.csv'), `${lines.join('\n')}\n`);
      await writeFile(join(dir, 'stat.json'), JSON.stringify(stat));
      const script = join(import.meta.dirname, '../../scripts/recompute-ci.py');
      for (const [provider, peers] of [
        ['alchemy', "['infura']"],
        ['infura', '[]'],
      ] as const) {
        const out = execFileSync('python3', [
          script,
          join(dir, 'day.csv'),
          join(dir, 'stat.json'),
          provider,
        ]).toString();
        expect(out).toContain(`less reliable than ${peers} (published ${peers})`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
