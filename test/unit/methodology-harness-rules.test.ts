import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { isFiveXxCycle } from '../../src/core/unresponsive.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../../src/harness/tokens.ts';
import { blame, type ProbeFailure } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { type StubRequest, type StubResponse, startStubServer } from '../../src/sim/stub-server.ts';
import { openTestStore } from '../helpers/memory-store.ts';

/**
 * Harness rules with no adapter of their own: the one blame rule, and the "cycle of 5xx" share.
 * Adapter-level cases live in test/unit/harness-trade-adapters.test.ts.
 */

const BENCH = 'token-trade-coverage';
const T = Date.UTC(2026, 6, 23, 12, 0, 0);
const BONK = REFERENCE_TOKENS[0] as ReferenceToken;

let specs: BenchmarkSpec[];
beforeAll(async () => {
  specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
});
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

describe('a cycle of 5xx: at least half of the probes', () => {
  it('exactly half is a cycle of 5xx', () => {
    expect(isFiveXxCycle(1, 2)).toBe(true);
    expect(isFiveXxCycle(2, 4)).toBe(true);
    expect(isFiveXxCycle(5, 10)).toBe(true);
  });

  it('just under half is not; just over half and all are', () => {
    expect(isFiveXxCycle(1, 3)).toBe(false);
    expect(isFiveXxCycle(4, 9)).toBe(false);
    expect(isFiveXxCycle(0, 4)).toBe(false);
    expect(isFiveXxCycle(5, 9)).toBe(true);
    expect(isFiveXxCycle(1, 1)).toBe(true);
  });

  it('no probes is no cycle of 5xx', () => {
    expect(isFiveXxCycle(0, 0)).toBe(false);
  });
});

describe('blame: our key is refused only on a 401/403 or a documented code, never on words', () => {
  const f = (failure: ProbeFailure) => blame(failure);

  it('a 401/403, a documented auth code and our deadline are ours', () => {
    expect(f({ type: 'auth', status: 401, message: 'HTTP 401' })).toBe('ours');
    expect(f({ type: 'auth', status: 403, message: 'HTTP 403' })).toBe('ours');
    expect(f({ type: 'auth', code: 'UNAUTHENTICATED', message: 'x' })).toBe('ours');
    expect(f({ type: 'deadline', message: 'cycle deadline' })).toBe('ours');
  });

  it('an "auth" failure with no status and no code, and every GraphQL error, are the provider', () => {
    expect(f({ type: 'auth', message: 'Rate limit exceeded for this API key' })).toBe('provider');
    expect(f({ type: 'parse', code: 'RATE_LIMITED', message: 'x' })).toBe('provider');
    expect(f({ type: 'parse', message: 'Token is invalid or not indexed on this network' })).toBe('provider');
    expect(f({ type: 'rate_limit', status: 429, message: 'x' })).toBe('provider');
    expect(f({ type: 'http_status', status: 503, message: 'x' })).toBe('provider');
  });
});

describe('a GraphQL error worded like an auth failure scores the provider zero (whole cycle)', () => {
  /** Mobula answers trades; Bitquery and Codex answer HTTP 200 with the given GraphQL errors. */
  async function cycle(bitquery: StubResponse, codex: StubResponse) {
    const stub = await startStubServer((r: StubRequest) => {
      if (r.path.startsWith('/mobula/'))
        return {
          body: JSON.stringify({
            data: ['a', 'b'].map((transactionHash) => ({ transactionHash })),
            pagination: { count: 2, nextCursor: null, hasMore: false },
          }),
        };
      return r.path.startsWith('/bitquery/') ? bitquery : codex;
    });
    cleanup.push(() => stub.close());
    const env: Record<string, string> = { HARNESS_TIMEOUT_MS: '2000' };
    for (const p of ['mobula', 'bitquery', 'codex']) {
      env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
      env[`${p.toUpperCase()}_API_KEY`] = 'k';
    }
    const store = await openTestStore();
    cleanup.push(() => store.close());
    const h = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(env),
      tokens: [BONK],
      autoStart: false,
      sleep: async () => {},
    });
    cleanup.push(() => h.stop());
    const report = await h.runCycle(BENCH, T);
    const probe = async (provider: string) =>
      (
        await store.latest({ metric: METRICS.tokenTradeProbeOk, matchers: [eq('provider', provider)], at: T })
      )[0]?.v;
    const status = (provider: string) =>
      report.cells?.[0]?.providers.find((p) => p.provider === provider)?.status;
    return { probe, status };
  }
  const gqlError = (message: string, code?: string): StubResponse => ({
    body: JSON.stringify({ data: null, errors: [{ message, ...(code ? { extensions: { code } } : {}) }] }),
  });

  it('"Rate limit exceeded for this API key" and "Token is invalid…" are zero trades and a failed probe', async () => {
    const { probe, status } = await cycle(
      gqlError('Rate limit exceeded for this API key'),
      gqlError('Token is invalid or not indexed on this network'),
    );
    for (const p of ['bitquery', 'codex']) {
      expect(status(p), p).toBe('zero');
      expect(await probe(p), p).toBe(0);
    }
    expect(await probe('mobula')).toBe(1);
  });

  it("Codex's documented UNAUTHENTICATED code is our refused key: nothing written for Codex", async () => {
    const { probe, status } = await cycle(
      gqlError('Unauthorized'),
      gqlError('Your API key was not found', 'UNAUTHENTICATED'),
    );
    expect(status('codex')).toBe('excluded');
    expect(await probe('codex')).toBeUndefined();
    // Bitquery documents no such code: its "Unauthorized" on a 200 is its own failure.
    expect(status('bitquery')).toBe('zero');
    expect(await probe('bitquery')).toBe(0);
  });
});
