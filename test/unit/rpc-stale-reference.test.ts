import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import {
  LOG_RANGES,
  PIN_DEPTHS,
  PROBE_ACCOUNTS,
  probeDraw,
} from '../../src/harness/families/json-rpc/methods.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { REFERENCE_STALE_MS } from '../../src/harness/families/json-rpc/reference.ts';
import { OFFSET_SPAN_MS, seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { referenceVar, rpcUrlVar } from '../../src/harness/rpc-config.ts';
import { startHarness } from '../../src/harness/service.ts';
import type { Clock } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { startJsonRpcNode, testNodeAnswer } from '../helpers/json-rpc-node.ts';
import { openTestStore } from '../helpers/memory-store.ts';

const SLOT = Date.UTC(2026, 5, 1, 12, 0);
const HEAD = 5_000;

/**
 * A JSON-RPC node of one Ethereum chain whose newest block is HEAD, stamped `headTime()`: every
 * provider and the reference read it, so all answers agree and only the head's age differs.
 */
let headTime = SLOT;
/** Every request the node was sent, in order. */
const asked: Array<{ method: string; params: unknown[] }> = [];
let now = SLOT + 30_500;
let node: Awaited<ReturnType<typeof startJsonRpcNode>>;
let url = '';

beforeAll(async () => {
  node = await startJsonRpcNode(({ method, params }) => {
    asked.push({ method, params: [...params] });
    return { result: testNodeAnswer(method, params, HEAD, (n) => headTime - (HEAD - n) * 12_000) };
  });
  url = node.url;
});

afterAll(() => node.close());

/** A clock past every offset of the slot (all under 30 s), inside its minute: each series fires at once. */
const clock: Clock = {
  now: () => now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

async function slotWithHeadAge(
  ageMs: number,
  slot = SLOT,
  extraEnv: Record<string, string> = {},
): Promise<{ samples: Sample[]; skipped: string }> {
  headTime = slot - ageMs;
  now = slot + 30_500;
  const specs: BenchmarkSpec[] = (await loadSpecs(BENCHMARKS_DIR))
    .filter((s) => s.family === 'json-rpc')
    .map((s) => ({ ...s, providers: s.providers.slice(0, 2).map((p) => ({ ...p, chains: ['ethereum'] })) }));
  const env: Record<string, string> = {
    [referenceVar('ethereum')]: url,
    HARNESS_REGION: 'us-east',
    // Ten probes at once on a loaded machine delay each other past the 2 ms margin: not this test's rule.
    HARNESS_LOOP_DELAY_LIMIT_MS: '1000',
    ...extraEnv,
  };
  for (const s of specs) for (const p of s.providers) env[rpcUrlVar(p.slug, 'ethereum')] = url;
  const store = await openTestStore();
  const registry = new Registry();
  const harness = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    clock,
    autoStart: false,
    log: () => {},
  });
  await harness.runCycle('rpc-latency', slot);
  await harness.stop();
  const samples: Sample[] = [];
  for (const m of Object.values(M))
    samples.push(...(await store.select({ metric: m, after: slot - 1, until: slot })));
  return { samples, skipped: await registry.getSingleMetricAsString('harness_probes_skipped_total') };
}

describe('a stalled reference head scores nothing', () => {
  it('a fresh reference head scores every probe; one older than REFERENCE_STALE_MS at the slot start skips the chain', async () => {
    const fresh = await slotWithHeadAge(12_000);
    expect(fresh.samples.filter((s) => s.metric === M.probeOk && s.v === 1)).toHaveLength(10);
    expect(fresh.samples.filter((s) => s.metric === M.headLagMs).map((s) => s.v)).toEqual([0, 0]);
    // Every provider would read 0 ms behind a head our node stopped at: not a measurement.
    const stale = await slotWithHeadAge(REFERENCE_STALE_MS + 12_000);
    expect(stale.samples.filter((s) => s.metric !== M.slotDown && s.metric !== M.probeExcluded)).toEqual([]);
    expect(
      stale.samples
        .filter((s) => s.metric === M.probeExcluded)
        .every((s) => s.labels.reason === 'stale_reference'),
    ).toBe(true);
    expect(stale.skipped).toMatch(/provider="alchemy",reason="stale_reference"} 5/);
    expect(stale.skipped).toMatch(/provider="infura",reason="stale_reference"} 5/);
  });
});

describe('probes look like traffic: each slot asks its own seeded question', () => {
  const balanceAccounts = () =>
    asked.filter((r) => r.method === 'eth_getBalance').map((r) => String(r.params[0]).toLowerCase());
  const logWidths = () =>
    asked
      .filter((r) => r.method === 'eth_getLogs')
      .map((r) => {
        const f = r.params[0] as { fromBlock: string; toBlock: string };
        return Number.parseInt(f.toBlock, 16) - Number.parseInt(f.fromBlock, 16) + 1;
      });

  it('every provider and the reference get the same account and range in a slot; across slots they vary, and the same seed asks the same again', async () => {
    const perSlot: Array<{ accounts: string[]; widths: number[] }> = [];
    for (let i = 0; i < 8; i++) {
      asked.length = 0;
      await slotWithHeadAge(12_000, SLOT + i * 300_000, { HARNESS_PROBE_SEED: '7' });
      perSlot.push({ accounts: balanceAccounts(), widths: logWidths() });
    }
    for (const { accounts, widths } of perSlot) {
      // The reference and the two providers: three balance reads of one account, three log reads of one range.
      expect(accounts).toHaveLength(3);
      expect(new Set(accounts).size).toBe(1);
      expect(new Set(widths).size).toBe(1);
      expect(PROBE_ACCOUNTS.map((a) => a.toLowerCase())).toContain(accounts[0]);
      expect(LOG_RANGES).toContain(widths[0]);
    }
    expect(new Set(perSlot.map((p) => p.accounts[0])).size).toBeGreaterThan(1);
    expect(new Set(perSlot.map((p) => p.widths[0])).size).toBeGreaterThan(1);
    // Reproducible from the seed: the same slot asks the same question again.
    asked.length = 0;
    await slotWithHeadAge(12_000, SLOT + 3 * 300_000, { HARNESS_PROBE_SEED: '7' });
    expect({ accounts: balanceAccounts(), widths: logWidths() }).toEqual(perSlot[3]);
  });

  it('draws cover each published set, follow the seed and differ between chains', () => {
    const slots = Array.from({ length: 400 }, (_, i) => SLOT + i * 300_000);
    const draws = slots.map((t) => probeDraw(7, 'ethereum', t));
    expect(new Set(draws.map((d) => d.account))).toEqual(new Set(PROBE_ACCOUNTS));
    expect(new Set(draws.map((d) => d.depth))).toEqual(new Set(PIN_DEPTHS));
    expect(new Set(draws.map((d) => d.logBlocks))).toEqual(new Set(LOG_RANGES));
    expect(slots.map((t) => probeDraw(7, 'ethereum', t))).toEqual(draws);
    const other = slots.map((t) => probeDraw(8, 'ethereum', t));
    expect(other.filter((d, i) => JSON.stringify(d) !== JSON.stringify(draws[i])).length).toBeGreaterThan(
      200,
    );
    const bsc = slots.map((t) => probeDraw(7, 'bsc', t));
    expect(bsc.filter((d, i) => JSON.stringify(d) !== JSON.stringify(draws[i])).length).toBeGreaterThan(200);
  });
});

describe('send offsets are drawn afresh every slot', () => {
  it("a series' offset moves across the whole span from slot to slot, by its key and the slot alone", () => {
    const slots = Array.from({ length: 200 }, (_, i) => SLOT + i * 60_000);
    const offsets = slots.map((t) => seriesOffset('alchemy', 'ethereum', 'block', t));
    expect(offsets.every((o) => o >= 0 && o < OFFSET_SPAN_MS)).toBe(true);
    expect(new Set(offsets).size).toBeGreaterThan(190);
    // Spread over the span: each third of it holds at least a fifth of the slots.
    for (let k = 0; k < 3; k++) {
      const inThird = offsets.filter((o) => Math.floor((o * 3) / OFFSET_SPAN_MS) === k).length;
      expect(inThird).toBeGreaterThan(40);
    }
    expect(slots.map((t) => seriesOffset('alchemy', 'ethereum', 'block', t))).toEqual(offsets);
  });
});
