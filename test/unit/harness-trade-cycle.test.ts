import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { DigestSet, unionSize } from '../../src/harness/digest-set.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { capturePct } from '../../src/harness/families/trade-capture/capture.ts';
import { type Harness, startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../../src/harness/tokens.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { type Simulator, startSimulator } from '../../src/sim/server.ts';
import { type StubRequest, type StubResponse, startStubServer } from '../../src/sim/stub-server.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';

const BENCH = 'token-trade-coverage';
const T = Date.UTC(2026, 6, 23, 12, 0, 0);
const HALF_HOUR = 1_800_000;
const BONK = REFERENCE_TOKENS[0] as ReferenceToken;
const SHX = REFERENCE_TOKENS[9] as ReferenceToken;
type Store = CountingStore;

let specs: BenchmarkSpec[];
beforeAll(async () => {
  specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
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

/** Per-provider canned answers for one cell: a list of hashes, a status, a hang, or a raw reply. */
type Canned = { hashes: string[] } | { status: number } | { hang: true } | { raw: StubResponse };

async function stubProviders(answers: Record<'mobula' | 'bitquery' | 'codex', Canned>) {
  const reply = (c: Canned, body: (h: string[]) => unknown): StubResponse =>
    'hashes' in c
      ? { body: JSON.stringify(body(c.hashes)) }
      : 'hang' in c
        ? { hang: true }
        : 'raw' in c
          ? c.raw
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
  stubs.push(stub);
  const env: Record<string, string> = {};
  for (const p of ['mobula', 'bitquery', 'codex']) env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
  Object.assign(env, { MOBULA_API_KEY: 'k', BITQUERY_API_KEY: 'k', CODEX_API_KEY: 'k' });
  return env;
}

const stubs: Array<{ requests: StubRequest[] }> = [];

async function cell(store: Store, metric: string, provider: string, at = T): Promise<number | undefined> {
  const s = await store.latest({ metric, matchers: [eq('provider', provider)], at, notBefore: at - 1 });
  return s[0]?.v;
}

const digests = (...hs: string[]) => {
  const d = new DigestSet(1000);
  for (const h of hs) d.add(h);
  return d;
};

describe('capture formula', () => {
  it('is count / max × 100, and no score at all when the max is 0', () => {
    expect(capturePct(3, 4)).toBe(75);
    expect(capturePct(0, 4)).toBe(0);
    expect(capturePct(0, 0)).toBeNull();
    expect(unionSize([digests('a', 'b'), digests('b', 'c'), digests('c', 'd', 'a')])).toBe(4);
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

  it('a key the provider refuses (ours) writes nothing for that provider and leaves it out of the baseline', async () => {
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

  it("a 401/403 on some cells of a cycle is the provider's failure; on every cell, our key refused, stored as an exclusion", async () => {
    const WIF = REFERENCE_TOKENS[1] as ReferenceToken;
    const run = async (refuse: (r: StubRequest) => boolean) => {
      const stub = await startStubServer((r: StubRequest) => {
        const hashes = ['a', 'b'];
        if (r.path.startsWith('/mobula/'))
          return refuse(r)
            ? { status: 403, body: '{}' }
            : {
                body: JSON.stringify({
                  data: hashes.map((transactionHash) => ({ transactionHash, type: 'buy', date: T - 1000 })),
                  pagination: { count: 2, nextCursor: null, hasMore: false },
                }),
              };
        if (r.path.startsWith('/bitquery/'))
          return {
            body: JSON.stringify({
              data: {
                Solana: { DEXTradeByTokens: hashes.map((Signature) => ({ Transaction: { Signature } })) },
              },
            }),
          };
        return {
          body: JSON.stringify({
            data: {
              getTokenEvents: { items: hashes.map((transactionHash) => ({ transactionHash })), cursor: null },
            },
          }),
        };
      });
      cleanup.push(() => stub.close());
      const env: Record<string, string> = { MOBULA_API_KEY: 'k', BITQUERY_API_KEY: 'k', CODEX_API_KEY: 'k' };
      for (const p of ['mobula', 'bitquery', 'codex'])
        env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
      const store = await openTestStore();
      cleanup.push(() => store.close());
      const report = await harnessOn(store, env, [BONK, WIF]).runCycle(BENCH, T);
      const at = async (metric: string, token: string) =>
        (
          await store.latest({
            metric,
            matchers: [eq('provider', 'mobula'), eq('token', token)],
            at: T,
            notBefore: T - 1,
          })
        )[0];
      const status = (token: string) =>
        report.cells?.find((c) => c.token === token)?.providers.find((p) => p.provider === 'mobula')?.status;
      return { at, status };
    };
    // Refused on WIF only: the key works, so the 403 is Mobula's failure there, as a timeout would be.
    const some = await run((r) => JSON.stringify([r.path, [...r.query], r.body]).includes(WIF.address));
    expect((await some.at(METRICS.tokenTradeProbeOk, 'WIF'))?.v).toBe(0);
    expect((await some.at(METRICS.tokenTradeCapturePct, 'WIF'))?.v).toBe(0);
    expect((await some.at(METRICS.tokenTradeProbeOk, 'BONK'))?.v).toBe(1);
    expect(some.status('WIF')).toBe('zero');
    expect(await some.at(METRICS.tokenTradeProbeExcluded, 'WIF')).toBeUndefined();
    // Refused on every cell: our key; nothing scored, and each exclusion is a sample with its reason.
    const all = await run(() => true);
    for (const token of ['BONK', 'WIF']) {
      expect(await all.at(METRICS.tokenTradeProbeOk, token)).toBeUndefined();
      expect(all.status(token)).toBe('excluded');
      const excluded = await all.at(METRICS.tokenTradeProbeExcluded, token);
      expect(excluded?.v).toBe(1);
      expect(excluded?.labels).toMatchObject({ chain: 'solana', reason: 'key_refused' });
    }
  });

  it('uses the same [T − 60 min, T) window for every provider, as each was actually asked', async () => {
    const env = await stubProviders({
      mobula: { hashes: ['a'] },
      bitquery: { hashes: ['a'] },
      codex: { hashes: ['a'] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
    const reqs = stubs.at(-1)?.requests ?? [];
    const mobula = reqs.find((r) => r.path.startsWith('/mobula/'));
    const bitquery = reqs.find((r) => r.path.startsWith('/bitquery/'));
    const codex = reqs.find((r) => r.path.startsWith('/codex/'));
    // Mobula takes inclusive ms bounds, Bitquery [since, before) in RFC 3339, Codex inclusive seconds.
    expect([mobula?.query.get('from'), mobula?.query.get('to')]).toEqual([
      String(T - 3_600_000),
      String(T - 1),
    ]);
    expect(JSON.parse(bitquery?.body ?? '{}').variables).toMatchObject({
      since: new Date(T - 3_600_000).toISOString().replace('.000Z', 'Z'),
      before: new Date(T).toISOString().replace('.000Z', 'Z'),
    });
    expect(JSON.parse(codex?.body ?? '{}').variables.query.timestamp).toEqual({
      from: (T - 3_600_000) / 1000,
      to: T / 1000 - 1,
    });
  });
});

describe('methodology rule 2: every failure the provider causes counts as zero trades and a failed probe', () => {
  const big = JSON.stringify({
    data: Array.from({ length: 4000 }, (_, i) => ({ transactionHash: `h${i}` })),
  });
  const cases: Array<[string, Canned, string]> = [
    ['connection reset', { raw: { reset: true } }, 'network'],
    ['connection refused', { raw: { status: 0 } }, 'network'],
    ['429 after the retries', { status: 429 }, 'rate_limit'],
    [
      'GraphQL-style errors[] on 200',
      { raw: { body: '{"data":null,"errors":[{"message":"boom"}]}' } },
      'parse',
    ],
    ['a malformed body', { raw: { body: '{"data":[{"transactionHash":' } }, 'parse'],
    ['an oversized body', { raw: { body: big } }, 'oversized'],
    ['a 404', { status: 404 }, 'http_status'],
  ];
  for (const [what, answer, type] of cases) {
    it(`${what}: zero trades, probe 0, scored against the others`, async () => {
      const env = await stubProviders({
        mobula: { hashes: ['a', 'b', 'c', 'd'] },
        bitquery: { hashes: ['a', 'b'] },
        codex: answer,
      });
      if (what === 'connection refused') env.CODEX_BASE_URL = 'http://127.0.0.1:9';
      const store = await openTestStore();
      cleanup.push(() => store.close());
      const r = await harnessOn(
        store,
        { ...env, HARNESS_MAX_BODY_BYTES: '20000', HARNESS_MAX_RETRIES: '1' },
        [BONK],
      ).runCycle(BENCH, T);
      expect(r.cells?.[0]?.providers.find((p) => p.provider === 'codex')).toMatchObject({
        status: 'zero',
        failure: { type },
      });
      expect(await cell(store, METRICS.tokenTradeCapturePct, 'codex')).toBe(0);
      expect(await cell(store, METRICS.tokenTradeCount, 'codex')).toBe(0);
      expect(await cell(store, METRICS.tokenTradeProbeOk, 'codex')).toBe(0);
      expect(await cell(store, METRICS.tokenTradeCapturePct, 'bitquery')).toBe(50);
    });
  }
});

describe("methodology rule 3: our cycle deadline is not the provider's timeout", () => {
  it("a cell cut short by our deadline scores nobody, is counted as abandoned, and stores each provider's exclusion", async () => {
    const env = await stubProviders({
      mobula: { hashes: ['a', 'b'] },
      bitquery: { hashes: ['a'] },
      codex: { hang: true },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const registry = new Registry();
    const r = await harnessOn(
      store,
      { ...env, HARNESS_TIMEOUT_MS: '10000', HARNESS_CYCLE_DEADLINE_MS: '300' },
      [BONK, REFERENCE_TOKENS[1] as ReferenceToken],
      registry,
    ).runCycle(BENCH, T);
    expect(r.aborted).toBe(true);
    expect(r.cells?.map((c) => c.abandoned)).toEqual(['deadline', 'deadline']);
    for (const m of [METRICS.tokenTradeCapturePct, METRICS.tokenTradeCount, METRICS.tokenTradeProbeOk]) {
      expect(await store.latest({ metric: m, at: T })).toEqual([]);
    }
    expect(await store.latest({ metric: METRICS.providerCycle5xx, at: T })).toEqual([]);
    const excluded = await store.latest({ metric: METRICS.tokenTradeProbeExcluded, at: T });
    expect(excluded.length).toBe(6);
    expect(new Set(excluded.map((s) => s.labels.reason))).toEqual(new Set(['deadline']));
    expect(await registry.metrics()).toContain(
      'harness_cells_abandoned_total{benchmark="token-trade-coverage",reason="deadline"} 2',
    );
  });
});

describe('methodology rule 4: no 0/0', () => {
  it('when every provider answers zero trades there is no baseline: no capture sample, probes ok', async () => {
    const env = await stubProviders({
      mobula: { hashes: [] },
      bitquery: { hashes: [] },
      codex: { hashes: [] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
    for (const p of ['mobula', 'bitquery', 'codex']) {
      expect(await cell(store, METRICS.tokenTradeCapturePct, p)).toBeUndefined();
      expect(await cell(store, METRICS.tokenTradeCount, p)).toBe(0);
      expect(await cell(store, METRICS.tokenTradeProbeOk, p)).toBe(1);
    }
  });
});

describe('methodology rule 5: bounded memory, capped instead of dropped', () => {
  it('the hash bound keeps the first N distinct hashes, flags the cell capped and scores the floor', async () => {
    const env = await stubProviders({
      mobula: { hashes: ['a', 'b', 'c', 'd', 'e'] },
      bitquery: { hashes: ['a', 'b'] },
      codex: { hashes: ['a', 'b', 'c'] },
    });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const r = await harnessOn(store, { ...env, HARNESS_MAX_HASHES: '4' }, [BONK]).runCycle(BENCH, T);
    expect(r.cells?.[0]?.providers.find((p) => p.provider === 'mobula')).toMatchObject({
      status: 'ok',
      count: 4,
      capped: true,
    });
    expect(await cell(store, METRICS.tokenTradeCapped, 'mobula')).toBe(1);
    expect(await cell(store, METRICS.tokenTradeCapped, 'codex')).toBe(0);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'mobula')).toBe(100);
    expect(await cell(store, METRICS.tokenTradeCapturePct, 'codex')).toBe(75);
  });

  it('the page guard stops paging and flags the cell capped (it used to throw the cell away)', async () => {
    const s = await startSimulator({ seed: 5, tradesPerHour: 900 });
    cleanup.push(() => s.close());
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const r = await harnessOn(store, { ...simulatorEnv(s.baseUrls, s.keys), HARNESS_MAX_PAGES: '2' }, [
      BONK,
    ]).runCycle(BENCH, T);
    const codex = r.cells?.[0]?.providers.find((p) => p.provider === 'codex');
    // Two pages of 200 rows; multi-swap transactions dedupe to fewer distinct hashes.
    expect(codex).toMatchObject({ status: 'ok', pages: 2, capped: true });
    expect(codex?.count).toBeGreaterThan(300);
    expect(codex?.count).toBeLessThanOrEqual(400);
    expect(await cell(store, METRICS.tokenTradeCapped, 'codex')).toBe(1);
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
    // Paging through 14,000 trades takes seconds on a busy machine: the timeout is not what is tested.
    const env = { ...simulatorEnv(s.baseUrls, s.keys), HARNESS_TIMEOUT_MS: '20000' };
    const r = await harnessOn(store, env, [BONK]).runCycle(BENCH, T);
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

  it('marks a provider unresponsive after exactly three 5xx cycles, from stored samples (surviving a restart), and clears it after one good cycle', async () => {
    const s = await sim({ tradesPerHour: 60 });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const env = simulatorEnv(s.baseUrls, s.keys);
    s.setFault('codex', { kind: 'status', status: 503 });
    const h1 = harnessOn(store, env, [BONK]);
    expect((await h1.runCycle(BENCH, T)).unresponsive?.codex).toBe(false);
    expect((await h1.runCycle(BENCH, T + HALF_HOUR)).unresponsive?.codex).toBe(false);
    await h1.stop();
    // A restart: nothing but the stored samples carries the streak.
    const h2 = harnessOn(store, env, [BONK]);
    expect((await h2.runCycle(BENCH, T + 2 * HALF_HOUR)).unresponsive?.codex).toBe(true);
    expect((await h2.runCycle(BENCH, T + 3 * HALF_HOUR)).unresponsive?.codex).toBe(true);
    s.setFault('codex', null);
    expect((await h2.runCycle(BENCH, T + 4 * HALF_HOUR)).unresponsive?.codex).toBe(false);
    const cycles = await store.select({
      metric: METRICS.providerCycle5xx,
      matchers: [eq('provider', 'codex')],
      after: 0,
      until: T + 10 * HALF_HOUR,
    });
    expect(cycles.map((x) => x.v)).toEqual([1, 1, 1, 1, 0]);
    expect(await store.getState('harness:unresponsive:token-trade-coverage:codex')).toBeNull();
  });

  it('a cycle of 5xx is one where at least half of the probes got a 5xx: 5xx on 7 of 8 cells counts', async () => {
    const s = await sim({ tradesPerHour: 60 });
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const eight = REFERENCE_TOKENS.filter((t) => t.chain !== 'stellar');
    const h = harnessOn(store, simulatorEnv(s.baseUrls, s.keys), eight);
    let last: Awaited<ReturnType<Harness['runCycle']>> | undefined;
    for (let k = 0; k < 3; k++) {
      // Cells run one at a time and a 60-trades/h cell is one Codex page: 7 failed cells, 1 good.
      s.setFault('codex', { kind: 'status', status: 502, times: 7 });
      last = await h.runCycle(BENCH, T + k * HALF_HOUR);
      const codexCells = last.cells?.map((c) => c.providers.find((p) => p.provider === 'codex')?.status);
      expect(codexCells?.filter((x) => x === 'zero')).toHaveLength(7);
    }
    expect(last?.unresponsive?.codex).toBe(true);
    expect(last?.unresponsive?.mobula).toBe(false);
  });
});
