/**
 * The json-rpc family at its real cadence, for benches: every minute, 3 regions, the catalogue's 8
 * providers on their chains, 5 methods (~1.14M samples a day), built by the probe's own sample
 * builder (samplesOf) with seeded latencies, failures, reasons and lags, so their shape (labels,
 * value spread) is the harness's. One append per region and slot, as the harness writes them.
 * The same seed and slots give the same samples (bench/rpc-day.ts draws them the same way). For
 * benches (bench/cold-view.ts, bench/fuzz.ts) and tests.
 */
import { HARNESS_CYCLE_METRIC } from '../../src/core/family.ts';
import { prng } from '../../src/core/prng.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import type { BlockRef } from '../../src/harness/families/json-rpc/methods.ts';
import { RPC_FAILURE_REASONS, RPC_KINDS } from '../../src/harness/families/json-rpc/metrics.ts';
import { samplesOf } from '../../src/harness/families/json-rpc/probe.ts';
import { seriesOffset } from '../../src/harness/families/json-rpc/series.ts';

export const RPC_REGIONS = ['us-east', 'eu-west', 'ap-southeast'] as const;

/**
 * Writes `slots` one-minute slots starting at `from` (epoch ms, minute-aligned) through `append`;
 * resolves to the samples written. `origin`: the label the samples carry (the demo's `simulated`,
 * as bench/rpc-day.ts writes them), or null for none (a service refuses to serve simulated samples
 * unless started to).
 */
export async function writeRpcSlots(
  specs: readonly BenchmarkSpec[],
  from: number,
  slots: number,
  append: (samples: readonly Sample[]) => Promise<number>,
  opts: { readonly seed?: number; readonly origin?: string | null } = {},
): Promise<number> {
  const origin = opts.origin === undefined ? 'simulated' : opts.origin;
  const rpcSpecs = specs.filter((s) => s.family === 'json-rpc');
  const latency = rpcSpecs.find((s) => s.slug === 'rpc-latency');
  if (!latency) throw new Error('rpc-latency spec missing');
  const series = latency.providers.flatMap((p) =>
    (p.chains ?? []).flatMap((chain) =>
      RPC_KINDS.map((kind) => ({
        provider: p.slug,
        chain,
        kind,
        offsetMs: seriesOffset(p.slug, chain, kind, from),
      })),
    ),
  );
  const rand = prng(opts.seed ?? 22);
  let written = 0;
  for (let slot = 0; slot < slots; slot++) {
    const at = from + slot * 60_000;
    const headNumber = 1_000_000 + Math.floor((slot * 60) / 12);
    const best: BlockRef = { number: headNumber, hash: '0x', timestampMs: at };
    for (const region of RPC_REGIONS) {
      const outcomes = series.map((s) => {
        const u = rand();
        if (u < 0.02) {
          const reason = RPC_FAILURE_REASONS[Math.floor(rand() * RPC_FAILURE_REASONS.length)] ?? 'timeout';
          return { series: s, ok: false as const, reason };
        }
        const ms = 15 + 150 * rand() ** 3;
        const lag = Math.floor(rand() * 4);
        const block =
          s.kind === 'block'
            ? { number: headNumber - lag, hash: '0x', timestampMs: at - lag * 12_000 }
            : undefined;
        return {
          series: s,
          ok: true as const,
          ms: Math.round(ms * 1000) / 1000,
          ...(block ? { block, head: best } : {}),
        };
      });
      const samples = samplesOf(outcomes, at, 10_000, 60_000);
      for (const spec of rpcSpecs)
        samples.push({ metric: HARNESS_CYCLE_METRIC, labels: { benchmark: spec.slug }, t: at, v: 1 });
      written += await append(
        samples.map((s) => ({
          ...s,
          labels: origin === null ? { ...s.labels, region } : { ...s.labels, region, origin },
        })),
      );
    }
  }
  return written;
}
