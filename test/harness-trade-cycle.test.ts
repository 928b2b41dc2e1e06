import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../src/core/metric-names.ts';
import { eq } from '../src/core/samples.ts';
import type { BenchmarkSpec } from '../src/core/spec-schema.ts';
import { capturePct, unionSize } from '../src/harness/capture.ts';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { type Harness, startHarness } from '../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../src/harness/tokens.ts';
import { nextUnresponsive } from '../src/harness/unresponsive.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { type Simulator, startSimulator } from '../src/sim/server.ts';
import { type StubRequest, type StubResponse, startStubServer } from '../src/sim/stub-server.ts';
import { type CountingStore, openTestStore } from './helpers/memory-store.ts';

const BENCH = 'token-trade-coverage';
const T = Date.UTC(2026, 6, 23, 12, 0, 0);
const HALF_HOUR = 1_800_000;
const BONK = REFERENCE_TOKENS[0] as ReferenceToken;
const SHX = REFERENCE_TOKENS[9] as ReferenceToken;
type Store = CountingStore;

let specs: BenchmarkSpec[];
beforeAll(async () => {
  specs = await loadSpecs(new URL('../benchmarks', import.meta.url).pathname);
});
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

function harnessOn(
  store: Store,
  env: Record<string, string>,
  tokens: readonly ReferenceToken[],
  registry = new Registry(),
): Harness {
  const h = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig({ HARNESS_TIMEOUT_MS: '400', ...env }),
    tokens,
    autoStart: false,
    sleep: async () => {},
  });
  cleanup.push(() => h.stop());
  return h;
}

/** Per-provider canned answers for one cell: a list of hashes, or a status/hang. */
type Canned = { hashes: string[] } | { status: number } | { hang: true };

async function stubProviders(answers: Record<'mobula' | 'bitquery' | 'codex', Canned>) {
  const reply = (c: Canned, body: (h: string[]) => unknown): StubResponse =>
    'hashes' in c
      ? { body: JSON.stringify(body(c.hashes)) }
      : 'hang' in c
        ? { hang: true }
        : { status: c.status, body: '{}' };
  const stub = await startStubServer((r: StubRequest) => {
    if (r.path.startsWith('/mobula/')) {
      return reply(answers.mobula, (h) => ({
        data: h.map((transactionHash) => ({ transactionHash, type: 'buy', date: T - 1000 })),
        pagination: { count: h.length, nextCursor: null, hasMore: false },
      }));
    }
    if (r.path.startsWith('/bitquery/')) {
      return reply(answers.bitquery, (h) => ({
        data: { Solana: { DEXTradeByTokens: h.map((Signature) => ({ Transaction: { Signature } })) } },
      }));
    }
    return reply(answers.codex, (h) => ({
      data: { getTokenEvents: { items: h.map((transactionHash) => ({ transactionHash })), cursor: null } },
    }));
  });
  cleanup.push(() => stub.close());
  const env: Record<string, string> = {};
  for (const p of ['mobula', 'bitquery', 'codex']) env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
  Object.assign(env, { MOBULA_API_KEY: 'k', BITQUERY_API_KEY: 'k', CODEX_API_KEY: 'k' });
  return env;
}

async function cell(store: Store, metric: string, provider: string, at = T): Promise<number | undefined> {
  const s = await store.latest({ metric, matchers: [eq('provider', provider)], at, notBefore: at - 1 });
  return s[0]?.v;
}

describe('capture formula', () => {
  it('is count / max × 100, 0 when the max is 0', () => {
    expect(capturePct(3, 4)).toBe(75);
    expect(capturePct(0, 0)).toBe(0);
    expect(unionSize([new Set(['a', 'b']), new Set(['b', 'c']), new Set(['c', 'd', 'a'])])).toBe(4);
    expect(unionSize([])).toBe(0);
  });
});

describe('token-trade-coverage cycle, hand-computed cells', () => {
  it('scores each provider against the largest count and stores the union of hashes', async () => {
    const env = await stubProviders({
      mobula: { hashes: ['a', 'b', 'c', 'd', 'd'] },
      bitquery: { hashes: ['a', 'b', 'e'] },
      codex: { hashes: ['a', 'b', 'b'] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
    expect(store.appendCalls).toBe(1);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'mobula')).toBe(100);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'bitquery')).toBe(75);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'codex')).toBe(50);
    expect(await cell(store, METRICS.tokenTradeCount, 'mobula')).toBe(4);
    expect(await cell(store, METRICS.tokenTradeProbeOk, 'codex')).toBe(1);
    expect(await cell(store, METRICS.tokenTradeCapped, 'bitquery')).toBe(0);
    const union = await store.latest({ metric: METRICS.tokenTradeUnionCount, at: T });
    expect(union).toEqual([
      { metric: METRICS.tokenTradeUnionCount, labels: { chain: 'solana', token: 'BONK' }, t: T, v: 5 },
    ]);
  });

  it('a timeout or a 5xx counts as zero trades, in the baseline, with probe_ok 0', async () => {
    const env = await stubProviders({
      mobula: { status: 503 },
      bitquery: { hashes: ['a', 'b', 'e'] },
      codex: { hang: true },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const r = await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
    for (const p of ['mobula', 'codex']) {
      expect(await cell(store, METRICS.tokenTradeCapturePct, p)).toBe(0);
      expect(await cell(store, METRICS.tokenTradeCount, p)).toBe(0);
      expect(await cell(store, METRICS.tokenTradeProbeOk, p)).toBe(0);
    }
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'bitquery')).toBe(100);
    expect(r.cells?.[0]?.providers.find((p) => p.provider === 'codex')?.failure?.type).toBe('timeout');
  });

  it('other failures (auth, 429, parse) write no capture sample and leave the provider out of the baseline', async () => {
    const env = await stubProviders({
      mobula: { status: 401 },
      bitquery: { hashes: ['a', 'b', 'e'] },
      codex: { hashes: ['a', 'b'] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const registry = new Registry();
    await harnessOn(store, env, [BONK], registry).runCycle(BENCH, T);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'mobula')).toBeUndefined();
    expect(await cell(store, METRICS.tokenTradeProbeOk, 'mobula')).toBeUndefined();
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'bitquery')).toBe(100);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'codex')).toBeCloseTo(66.667, 2);
    expect((await store.latest({ metric: METRICS.tokenTradeUnionCount, at: T }))[0]?.v).toBe(3);
    expect(await registry.metrics()).toContain(
      'fetch_errors_total{benchmark="token-trade-coverage",provider="mobula",error_type="auth"} 1',
    );
  });

  it('uses the same [T − 60 min, T) window for every provider', async () => {
    const env = await stubProviders({
      mobula: { hashes: [] },
      bitquery: { hashes: [] },
      codex: { hashes: [] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
    // All zero: capture 0 (max is 0), probes ok.
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'codex')).toBe(0);
    expect(await cell(store, METRICS.tokenTradeProbeOk, 'codex')).toBe(1);
  });
});

describe('token-trade-coverage cycle against the simulator', () => {
  async function sim(opts: Partial<Parameters<typeof startSimulator>[0]> = {}): Promise<Simulator> {
    const s = await startSimulator({ seed: 11, tradesPerHour: 300, ...opts });
    cleanup.push(() => s.close());
    return s;
  }

  it('measures Stellar only for providers whose spec chains include it (no sample at all for others)', async () => {
    const s = await sim();
    const store = await openTestStore();
    cleanup.push(() => store.close());
    await harnessOn(store, simulatorEnv(s.baseUrls, s.keys), [BONK, SHX]).runCycle(BENCH, T);
    const stellar = await store.latest({
      metric: METRICS.tokenTradeCapturePct,
      matchers: [eq('chain', 'stellar')],
      at: T,
    });
    expect(stellar.map((x) => x.labels.provider)).toEqual(['mobula']);
    expect(stellar[0]?.v).toBe(100);
    for (const m of [METRICS.tokenTradeCount, METRICS.tokenTradeProbeOk]) {
      const rows = await store.latest({ metric: m, matchers: [eq('chain', 'stellar')], at: T });
      expect(rows.map((x) => x.labels.provider)).toEqual(['mobula']);
    }
    const solana = await store.latest({
      metric: METRICS.tokenTradeCapturePct,
      matchers: [eq('chain', 'solana')],
      at: T,
    });
    expect(solana.map((x) => x.labels.provider).sort()).toEqual(['bitquery', 'codex', 'mobula']);
    expect(Math.max(...solana.map((x) => x.v))).toBe(100);
  });

  it('flags Bitquery capped at 10000 rows while the others page through everything', async () => {
    const s = await sim({ tradesPerHour: 14_000 });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const r = await harnessOn(store, simulatorEnv(s.baseUrls, s.keys), [BONK]).runCycle(BENCH, T);
    const c = r.cells?.[0];
    const bq = c?.providers.find((p) => p.provider === 'bitquery');
    const mb = c?.providers.find((p) => p.provider === 'mobula');
    expect(bq?.capped).toBe(true);
    expect(await cell(store, METRICS.tokenTradeCapped, 'bitquery')).toBe(1);
    expect(bq?.count).toBeLessThanOrEqual(10_000);
    expect(mb?.count).toBeGreaterThan(10_000);
    expect(mb?.pages).toBeGreaterThan(2);
    expect(c?.unionCount).toBeGreaterThanOrEqual(mb?.count ?? 0);
  });

  it('marks a provider unresponsive after exactly three 5xx cycles (surviving a restart) and clears it after one good cycle', async () => {
    const s = await sim({ tradesPerHour: 60 });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const env = simulatorEnv(s.baseUrls, s.keys);
    const unresponsive = async (at: number) =>
      (
        await store.latest({
          metric: METRICS.providerUnresponsive,
          matchers: [eq('provider', 'codex')],
          at,
          notBefore: at - 1,
        })
      )[0]?.v;
    s.setFault('codex', { kind: 'status', status: 503 });
    const h1 = harnessOn(store, env, [BONK]);
    await h1.runCycle(BENCH, T);
    await h1.runCycle(BENCH, T + HALF_HOUR);
    expect(await unresponsive(T)).toBe(0);
    expect(await unresponsive(T + HALF_HOUR)).toBe(0);
    await h1.stop();
    // A restart: the streak lives in the StateStore.
    const h2 = harnessOn(store, env, [BONK]);
    await h2.runCycle(BENCH, T + 2 * HALF_HOUR);
    expect(await unresponsive(T + 2 * HALF_HOUR)).toBe(1);
    await h2.runCycle(BENCH, T + 3 * HALF_HOUR);
    expect(await unresponsive(T + 3 * HALF_HOUR)).toBe(1);
    s.setFault('codex', null);
    await h2.runCycle(BENCH, T + 4 * HALF_HOUR);
    expect(await unresponsive(T + 4 * HALF_HOUR)).toBe(0);
    // Every measured provider gets the sample every cycle.
    const all = await store.select({
      metric: METRICS.providerUnresponsive,
      after: 0,
      until: T + 10 * HALF_HOUR,
    });
    expect(all.filter((x) => x.labels.provider === 'mobula').map((x) => x.v)).toEqual([0, 0, 0, 0, 0]);
  });

  it('the unresponsive rule: only consecutive 5xx cycles count; other failures break the run but never clear the mark', () => {
    let s = { streak: 0, marked: false };
    s = nextUnresponsive(s, '5xx');
    s = nextUnresponsive(s, '5xx');
    s = nextUnresponsive(s, 'other');
    s = nextUnresponsive(s, '5xx');
    expect(s).toEqual({ streak: 1, marked: false });
    s = nextUnresponsive(nextUnresponsive(s, '5xx'), '5xx');
    expect(s.marked).toBe(true);
    expect(nextUnresponsive(s, 'other').marked).toBe(true);
    expect(nextUnresponsive(s, 'none')).toEqual(s);
    expect(nextUnresponsive(s, 'ok')).toEqual({ streak: 0, marked: false });
  });
});
