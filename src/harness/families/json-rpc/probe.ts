import { performance } from 'node:perf_hooks';
import type { Sample } from '../../../core/samples.ts';
import type { BenchmarkSpec } from '../../../core/spec-schema.ts';
import { LoopDelayWatch } from '../../loop-delay.ts';
import type { ProviderOutcome } from '../../report.ts';
import type { HarnessRuntime } from '../../runtime.ts';
import type { Clock } from '../../types.ts';
import type { ProbeReports, ProbeRun } from '../family.ts';
import { providerUnion } from '../union.ts';
import type { RpcConnection } from './client.ts';
import {
  type BlockRef,
  checkAnswer,
  nearHead,
  probeDraw,
  type ReferenceAnswers,
  requestOf,
} from './methods.ts';
import {
  DOWN_REASONS,
  JSON_RPC_METRICS as M,
  RPC_KINDS,
  type RpcFailureReason,
  type RpcKind,
  type RpcSkipReason,
} from './metrics.ts';
import { REFERENCE_STALE_MS, referenceAnswers, referenceBlock, referenceHead } from './reference.ts';
import { connectionOf, MAX_TIMER_LATENESS_MS, type Series, seriesOffset } from './series.ts';

/** Chain ids of the chains the family can measure (the EVM chains of the reference tokens). */
export const RPC_CHAIN_IDS: Readonly<Record<string, number>> = { ethereum: 1, bsc: 56, base: 8453 };

/** What one series' probe came to: scored (ok or a failure), or skipped on our side. */
export type Outcome =
  | {
      readonly series: Series;
      readonly ok: true;
      readonly ms: number;
      readonly block?: BlockRef;
      /** Our node's head read right after the answer: what `block`'s lag is measured against. */
      readonly head?: BlockRef;
    }
  | {
      readonly series: Series;
      readonly ok: false;
      readonly reason: RpcFailureReason;
      /** A canonical block too far behind the head to be a head answer: its lag still counts. */
      readonly block?: BlockRef;
      readonly head?: BlockRef;
    }
  | { readonly series: Series; readonly skipped: RpcSkipReason };

const logged = new WeakMap<HarnessRuntime, Set<string>>();
function logOnce(rt: HarnessRuntime, key: string, msg: string, fields: Record<string, string>): void {
  let set = logged.get(rt);
  if (!set) {
    set = new Set();
    logged.set(rt, set);
  }
  if (set.has(key)) return;
  set.add(key);
  rt.log('warn', msg, fields);
}

/** The kinds the family's benchmarks ask for: the `kind` dimension's values, else every method. */
function kindsOf(benchmarks: readonly BenchmarkSpec[]): RpcKind[] {
  const wanted = new Set<string>();
  for (const b of benchmarks) for (const v of b.dimensions.kind?.values ?? []) wanted.add(v.value);
  return RPC_KINDS.filter((k) => wanted.size === 0 || wanted.has(k) || k === 'block');
}

function waitUntil(clock: Clock, at: number, signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    const planned = performance.now();
    const wait = Math.max(0, at - clock.now());
    const h = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      // Lateness in real ms: a demo clock's wait is `rate` times shorter than its span.
      resolve(performance.now() - planned - wait / (clock.rate ?? 1));
    }, wait);
    const onAbort = () => {
      clock.clearTimeout(h);
      resolve(0);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One slot of the json-rpc family in this harness's region: the reference node's answers per chain
 * (untimed), then every series (provider × chain × method) at its own offset, then one append of
 * every scored sample, stamped at the slot start so providers pair by exact timestamp.
 */
export async function runJsonRpcProbe(run: ProbeRun): Promise<ProbeReports> {
  const started = performance.now();
  const { rt, benchmarks, at, signal, clock } = run;
  const cfg = rt.config.rpc;
  const region = rt.extraLabels?.region ?? '';
  const counted = benchmarks.find((b) => b.derivation.metric === M.latencyMs) ?? benchmarks[0];
  const bench = counted?.slug ?? '';
  const kinds = kindsOf(benchmarks);
  const providers = providerUnion(benchmarks).filter(
    (p) => !rt.onlyProviders || rt.onlyProviders.has(p.slug),
  );
  const chains = new Set(providers.flatMap((p) => p.entries.flatMap((e) => e.chains ?? [])));
  const refUrl = new Map<string, string>();
  for (const chain of chains) {
    const url = cfg.references.get(chain);
    if (url && RPC_CHAIN_IDS[chain] !== undefined) refUrl.set(chain, url);
    else
      logOnce(
        rt,
        `ref|${chain}`,
        `json-rpc: no reference node for ${chain} (REFERENCE_RPC_*): not measured`,
        { chain },
      );
  }
  const hexId = (chain: string) => `0x${(RPC_CHAIN_IDS[chain] ?? 0).toString(16)}`;
  const tokenOf = (chain: string) => rt.tokens.find((t) => t.chain === chain)?.address ?? '';
  const refs = new Map<string, Promise<ReferenceAnswers | null>>();
  for (const [chain, url] of refUrl)
    refs.set(
      chain,
      referenceAnswers(url, hexId(chain), tokenOf(chain), probeDraw(rt.config.probeSeed, chain, at), signal),
    );

  const series: Array<{ s: Series; url: string }> = [];
  for (const p of providers) {
    const endpoints = cfg.endpoints.get(p.slug);
    const own = new Set(p.entries.flatMap((e) => e.chains ?? []));
    for (const chain of own) {
      if (!refUrl.has(chain)) continue;
      const url = endpoints?.get(chain);
      if (url === undefined) {
        logOnce(
          rt,
          `cfg|${p.slug}|${chain}`,
          `json-rpc: ${p.slug} on ${chain} not configured (no key or URL): skipped`,
          {
            provider: p.slug,
            chain,
          },
        );
        continue;
      }
      for (const kind of kinds) {
        series.push({
          s: { provider: p.slug, chain, kind, offsetMs: seriesOffset(p.slug, chain, kind, at) },
          url,
        });
      }
    }
  }

  const timeoutMs = rt.config.rpcTimeoutMs;
  // Live probes only: a backfilled one is timed on the simulated clock, which our loop cannot delay.
  const watch = rt.virtualLatency ? null : new LoopDelayWatch();
  const delays = new Map<Series, number>();
  /** One probe's call, and our loop's delay over its timed interval (connecting and the chain-id check are not the provider's time). */
  async function timedCall(conn: RpcConnection, req: ReturnType<typeof requestOf>, s: Series) {
    // The watch ticks only while some probe is in flight, not through the slot's waits.
    watch?.acquire();
    try {
      const r = await conn.call(req.method, req.params, {
        timeoutMs,
        signal,
        ...(rt.virtualLatency ? { virtualLatency: true } : {}),
      });
      if (watch && r.ok) delays.set(s, await watch.delayOver(r.startedAt, r.startedAt + r.ms));
      return r;
    } finally {
      watch?.release();
    }
  }
  async function probeOne({ s, url }: { s: Series; url: string }): Promise<Outcome> {
    // The backfill's clock is simulated: series do not wait for their offsets.
    if (!rt.virtualLatency) {
      const late = await waitUntil(clock, at + s.offsetMs, signal);
      if (late > MAX_TIMER_LATENESS_MS) return { series: s, skipped: 'event_loop_lag' };
    }
    if (signal.aborted) return { series: s, skipped: 'deadline' };
    const ref = await refs.get(s.chain);
    if (!ref) return { series: s, skipped: 'no_reference' };
    // A stalled reference would make every provider look fresh: such a slot is not scored.
    if (at - ref.head.timestampMs > REFERENCE_STALE_MS) return { series: s, skipped: 'stale_reference' };
    const req = requestOf(s.kind, tokenOf(s.chain), ref.pinned, ref.draw);
    const conn = connectionOf(rt, s, url, hexId(s.chain));
    const r = await timedCall(conn, req, s);
    if (signal.aborted) return { series: s, skipped: 'deadline' };
    // Whether a refusal is our key's is decided over the whole slot (keyRefusals).
    if (!r.ok) return { series: s, ok: false, reason: r.reason === 'key_refused' ? 'refused' : r.reason };
    const checked = checkAnswer(s.kind, r.result, ref);
    if (!checked.ok) return { series: s, ok: false, reason: checked.reason };
    if (checked.headNumber === undefined) return { series: s, ok: true, ms: r.ms };
    // A head answer is judged against our node's head when it came back, not at the slot's start:
    // a series sending late in the slot would otherwise read fresh, one sending early stale.
    const nodeUrl = refUrl.get(s.chain) ?? '';
    const head = await referenceHead(nodeUrl, signal);
    if (signal.aborted) return { series: s, skipped: 'deadline' };
    if (!head) return { series: s, skipped: 'no_reference' };
    // The backfill's answers come at the slot's time plus their simulated latency.
    const answeredAt = rt.virtualLatency ? at + r.ms : clock.now();
    if (answeredAt - head.timestampMs > REFERENCE_STALE_MS) return { series: s, skipped: 'stale_reference' };
    const near = nearHead(checked.headNumber, head.number);
    const block = checked.block;
    if (!block)
      return near ? { series: s, ok: true, ms: r.ms } : { series: s, ok: false, reason: 'wrong_result' };
    const canonical = await referenceBlock(nodeUrl, block.number, signal);
    // A block our node does not have is ours to skip only when it could be a fresh head.
    if (!canonical)
      return near ? { series: s, skipped: 'no_reference' } : { series: s, ok: false, reason: 'wrong_result' };
    if (canonical.hash !== block.hash) return { series: s, ok: false, reason: 'not_canonical', head };
    if (!near) return { series: s, ok: false, reason: 'wrong_result', block, head };
    return { series: s, ok: true, ms: r.ms, block, head };
  }

  const probed = await Promise.all(series.map(probeOne));
  const margin =
    rt.config.loopDelayLimitMs ??
    (counted?.derivation.mode === 'window' ? counted.derivation.tieMargin : Number.POSITIVE_INFINITY);
  const outcomes = keyRefusals(loopDelayExclusions(probed, delays, margin));
  const lagBench = benchmarks.find((b) => b.derivation.metric === M.headLagMs);
  const failedLagMs = lagBench?.derivation.mode === 'window' ? (lagBench.derivation.failedValue ?? 0) : 0;
  const samples = samplesOf(outcomes, at, timeoutMs, failedLagMs);
  const heads = Object.fromEntries(
    [...(await newestHeads(refs, outcomes))].map(([chain, b]) => [chain, b.timestampMs]),
  );
  for (const o of outcomes) {
    if ('skipped' in o)
      rt.metrics.probesSkipped.inc({
        benchmark: bench,
        region,
        provider: o.series.provider,
        reason: o.skipped,
      });
    else if (!o.ok)
      rt.metrics.fetchErrors.inc({ benchmark: bench, provider: o.series.provider, error_type: o.reason });
  }
  const written = await run.write(samples);
  const durationMs = performance.now() - started;
  const byProvider: ProviderOutcome[] = providers.map((p) => {
    const own = outcomes.filter((o) => o.series.provider === p.slug && !('skipped' in o));
    const good = own.filter((o) => 'ok' in o && o.ok).length;
    return {
      provider: p.slug,
      status: own.length === 0 ? 'not_configured' : good > 0 ? 'ok' : 'failed',
      count: good,
      durationMs,
    };
  });
  return new Map(
    benchmarks.map((b) => [
      b.slug,
      {
        benchmark: b.slug,
        at,
        durationMs,
        samplesWritten: written,
        aborted: signal.aborted,
        heads,
        providers: byProvider.filter((o) => b.providers.some((p) => p.slug === o.provider)),
      },
    ]),
  );
}

/**
 * A 401/403 is our key refused only when the provider refused every probe of the slot it was sent
 * (those skipped on our side aside): then none of them is scored. A provider that refuses some and
 * answers others has a working key, and each refusal is its failure (`refused`), so answering 403
 * instead of a slow answer can never buy a success rate.
 */
export function keyRefusals(outcomes: readonly Outcome[]): Outcome[] {
  const answered = new Map<string, boolean>();
  for (const o of outcomes) {
    if ('skipped' in o) continue;
    const refused = !o.ok && o.reason === 'refused';
    answered.set(o.series.provider, (answered.get(o.series.provider) ?? false) || !refused);
  }
  return outcomes.map((o) =>
    !('skipped' in o) && !o.ok && o.reason === 'refused' && answered.get(o.series.provider) === false
      ? { series: o.series, skipped: 'key_refused' }
      : o,
  );
}

/**
 * A correct answer whose timed interval our own event loop delayed by more than the margin is not
 * scored (`loop_delay`): its time is partly ours. A failed or timed-out probe is never excluded so,
 * since a provider's failure must never turn into our exclusion.
 */
export function loopDelayExclusions(
  outcomes: readonly Outcome[],
  delays: ReadonlyMap<Series, number>,
  marginMs: number,
): Outcome[] {
  return outcomes.map((o) =>
    'ok' in o && o.ok && (delays.get(o.series) ?? 0) > marginMs
      ? { series: o.series, skipped: 'loop_delay' }
      : o,
  );
}

/** Per chain, the newest head our node showed in the slot (its start, or after an answer). */
async function newestHeads(
  refs: ReadonlyMap<string, Promise<ReferenceAnswers | null>>,
  outcomes: readonly Outcome[],
): Promise<Map<string, BlockRef>> {
  const best = new Map<string, BlockRef>();
  const offer = (chain: string, b: BlockRef) => {
    const cur = best.get(chain);
    if (!cur || b.number > cur.number) best.set(chain, b);
  };
  for (const [chain, p] of refs) {
    const ref = await p;
    if (ref) offer(chain, ref.head);
  }
  for (const o of outcomes) if ('head' in o && o.head) offer(o.series.chain, o.head);
  return best;
}

/**
 * The slot's samples: each scored probe's latency (the timeout when it failed) and outcome; each
 * `block` probe's head lag against our node's head read right after its answer: a correct one's
 * own, a failed, wrong or non-canonical one's the worst of `failedLagMs`, the chain's worst
 * answered lag of the slot and its own (a canonical block far behind), so failing never scores
 * better than answering; beside each lag, the block number the provider named and the node's head
 * it was measured against, where known, so the dataset can recompute it; one exclusion sample per
 * probe skipped on our side, with its reason; each provider's down-slot marker.
 */
export function samplesOf(
  outcomes: readonly Outcome[],
  t: number,
  timeoutMs: number,
  failedLagMs: number,
): Sample[] {
  const out: Sample[] = [];
  const perProvider = new Map<string, { probes: number; down: number }>();
  const lagOf = (o: Outcome): number | null =>
    'head' in o && o.head && o.block ? headLag(o.block, o.head) : null;
  const worstLag = new Map<string, number>();
  for (const o of outcomes) {
    if ('skipped' in o || !o.ok) continue;
    const lag = lagOf(o);
    if (lag !== null) worstLag.set(o.series.chain, Math.max(worstLag.get(o.series.chain) ?? 0, lag));
  }
  for (const o of outcomes) {
    if ('skipped' in o) {
      const { provider, chain, kind } = o.series;
      out.push({ metric: M.probeExcluded, labels: { provider, chain, kind, reason: o.skipped }, t, v: 1 });
      continue;
    }
    const { provider, chain, kind } = o.series;
    const labels = { provider, chain, kind };
    const tally = perProvider.get(provider) ?? { probes: 0, down: 0 };
    tally.probes++;
    const lag = lagOf(o);
    if (o.ok) {
      out.push({ metric: M.latencyMs, labels, t, v: o.ms });
      out.push({ metric: M.probeOk, labels, t, v: 1 });
      if (lag !== null) out.push({ metric: M.headLagMs, labels: { provider, chain }, t, v: lag });
    } else {
      if (DOWN_REASONS.has(o.reason)) tally.down++;
      out.push({ metric: M.latencyMs, labels, t, v: timeoutMs });
      out.push({ metric: M.probeOk, labels: { ...labels, reason: o.reason }, t, v: 0 });
      if (kind === 'block') {
        const v = Math.max(failedLagMs, worstLag.get(chain) ?? 0, lag ?? 0);
        out.push({ metric: M.headLagMs, labels: { provider, chain }, t, v });
      }
    }
    if (kind === 'block') {
      if (o.block) out.push({ metric: M.headBlock, labels: { provider, chain }, t, v: o.block.number });
      if (o.head) out.push({ metric: M.referenceHead, labels: { provider, chain }, t, v: o.head.number });
    }
    perProvider.set(provider, tally);
  }
  for (const [provider, { probes, down }] of perProvider) {
    out.push({ metric: M.slotDown, labels: { provider }, t, v: down * 2 >= probes ? 1 : 0 });
  }
  return out;
}

/**
 * How far a provider's `latest` block is behind the node's head: the head's timestamp minus the
 * block's, 0 when the block is the head or newer.
 */
export function headLag(block: BlockRef, head: BlockRef): number {
  return block.number >= head.number ? 0 : Math.max(0, head.timestampMs - block.timestampMs);
}
