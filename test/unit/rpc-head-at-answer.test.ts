import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hash32 } from '../../src/core/prng.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { OFFSET_SPAN_MS, seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { referenceVar, rpcUrlVar } from '../../src/harness/rpc-config.ts';
import { startHarness } from '../../src/harness/service.ts';
import type { Clock } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { startJsonRpcNode, testNodeAnswer } from '../helpers/json-rpc-node.ts';
import { openTestStore } from '../helpers/memory-store.ts';

/**
 * A chain mined every BLOCK_MS on the test's clock: its head is a function of the clock's now, so
 * a probe sent later in a slot sees a newer chain. The provider serves it LAG_BLOCKS behind, a
 * lag drawn per slot; the reference (our node) serves the head itself.
 */
const BLOCK_MS = 2_000;
const GENESIS = Date.UTC(2026, 5, 1, 0, 0);
const SLOT0 = Date.UTC(2026, 5, 1, 12, 0);
let now = SLOT0;
let slotLag = 0;
/** Resolves once our node has answered the slot's pinned reads: the slot's start is over. */
let startRead: Promise<void> = Promise.resolve();
let pinnedReads = 0;
let onStartRead = () => {};
function newSlot(at: number): void {
  now = at;
  pinnedReads = 0;
  startRead = new Promise((r) => {
    onStartRead = r;
  });
}
const headAt = (t: number) => Math.floor((t - GENESIS) / BLOCK_MS);
let node: Awaited<ReturnType<typeof startJsonRpcNode>>;
let url = '';
beforeAll(async () => {
  node = await startJsonRpcNode(({ path, method, params }) => {
    const who = path.startsWith('/provider') ? 'provider' : 'reference';
    const head = headAt(now) - (who === 'provider' ? slotLag : 0);
    const result = testNodeAnswer(method, params, head, (n) => GENESIS + n * BLOCK_MS);
    if (who === 'reference' && ['eth_getBalance', 'eth_call', 'eth_getLogs'].includes(method))
      if (++pinnedReads === 3) queueMicrotask(onStartRead);
    return { result };
  });
  url = node.url;
});
afterAll(() => node.close());

/**
 * The harness's clock: a wait within a slot's offsets moves now to its end once our node has
 * answered the slot's start (one series per slot, so no two waits overlap); longer timers (the
 * cycle deadline) never fire.
 */
const clock: Clock = {
  now: () => now,
  setTimeout: (fn, ms) => {
    if (ms > OFFSET_SPAN_MS) return null;
    const due = now + ms;
    const handle = { cancelled: false };
    void startRead.then(() => {
      if (handle.cancelled) return;
      now = due;
      fn();
    });
    return handle;
  },
  clearTimeout: (h) => {
    if (h !== null) (h as { cancelled: boolean }).cancelled = true;
  },
};

function pearson(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('head lag is measured against our node at the answer, not against the slot', () => {
  it("a provider's lag does not depend on when in the slot it was asked: |r(offset, lag)| < 0.2 over 120 slots, and each lag is its own blocks behind", async () => {
    const specs: BenchmarkSpec[] = (await loadSpecs(BENCHMARKS_DIR))
      .filter((s) => s.family === 'json-rpc')
      .map((s) => {
        const kind = {
          appliesTo: 'label' as const,
          fromData: false,
          values: [{ value: 'block', label: 'block' }],
        };
        return {
          ...s,
          providers: s.providers.slice(0, 1).map((p) => ({ ...p, chains: ['ethereum'] })),
          // One series per slot (the block probe): its wait is the only one the clock runs.
          dimensions: { ...s.dimensions, kind },
        };
      });
    const provider = specs[0]?.providers[0]?.slug ?? '';
    const env: Record<string, string> = {
      [referenceVar('ethereum')]: `${url}/reference`,
      [rpcUrlVar(provider, 'ethereum')]: `${url}/provider`,
      HARNESS_REGION: 'us-east',
      // Our loop's delay is another rule's (rpc-loop-delay.test.ts): a loaded machine must not skip slots here.
      HARNESS_LOOP_DELAY_LIMIT_MS: '1000',
    };
    const store = await openTestStore();
    const harness = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(env),
      clock,
      autoStart: false,
      log: () => {},
    });
    const offsets: number[] = [];
    const lags: number[] = [];
    const drawn: number[] = [];
    try {
      for (let i = 0; i < 120; i++) {
        const at = SLOT0 + i * 60_000;
        newSlot(at);
        slotLag = hash32(`lag|${i}`) % 4;
        await harness.runCycle('rpc-latency', at);
        const [lag] = await store.select({ metric: M.headLagMs, after: at - 1, until: at });
        if (!lag) continue;
        offsets.push(seriesOffset(provider, 'ethereum', 'block', at));
        lags.push(lag.v);
        drawn.push(slotLag);
        // Beside each lag, the numbers it was measured from (the dataset can recompute it).
        const named = (m: string) => store.select({ metric: m, after: at - 1, until: at });
        const [ownBlock] = (await named(M.headBlock)) as Sample[];
        const [nodeHead] = (await named(M.referenceHead)) as Sample[];
        expect((nodeHead?.v ?? 0) - (ownBlock?.v ?? 0)).toBe(slotLag);
      }
    } finally {
      await harness.stop();
    }
    expect(lags.length).toBe(120);
    expect(Math.abs(pearson(offsets, lags))).toBeLessThan(0.2);
    // Each lag is exactly the provider's own blocks behind, wherever in the slot it was asked.
    expect(lags).toEqual(drawn.map((b) => b * BLOCK_MS));
  });
});
