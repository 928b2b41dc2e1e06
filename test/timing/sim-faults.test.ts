import { afterEach, describe, expect, it } from 'vitest';
import { requestJson } from '../../src/harness/http.ts';
import type { Fault } from '../../src/sim/faults.ts';
import { type Simulator, startSimulator } from '../../src/sim/server.ts';
import { scaledBudget } from '../helpers/calibration.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function sim(opts: Partial<Parameters<typeof startSimulator>[0]> = {}): Promise<Simulator> {
  const s = await startSimulator({ seed: 5, tradesPerHour: 600, ...opts });
  cleanup.push(() => s.close());
  return s;
}

// A loopback simulator answers in a few ms: outside the test of the timeout itself, the request
// timeout is only an outer bound, so a busy machine never turns an answer into a timeout.
const HTTP = { timeoutMs: 30_000, maxBodyBytes: 1 << 20, maxRetries: 0, retryMaxWaitMs: 0 };

/** CoinPaprika's listing: a keyless GET with a body of a few kilobytes. */
const listing = (s: Simulator) => `${s.baseUrls.coinpaprika}/v1/contracts`;

describe('simulator faults the harness must classify', () => {
  it('a reset before any byte is a network failure (ECONNRESET)', async () => {
    const s = await sim();
    s.setFault('coinpaprika', { kind: 'reset', times: 1 });
    const r = await requestJson({ url: listing(s) }, HTTP);
    expect(r).toMatchObject({ ok: false, failure: { type: 'network' } });
    expect(r.ok ? '' : r.failure.message).toMatch(/ECONNRESET|socket|terminated/i);
    // The next request is served normally.
    expect((await requestJson({ url: listing(s) }, HTTP)).ok).toBe(true);
  });

  it('a reset part-way through the body is a network failure, never parsed as data', async () => {
    const s = await sim();
    s.setFault('coinpaprika', { kind: 'reset', afterBytes: 100, times: 1 });
    const r = await requestJson({ url: listing(s) }, HTTP);
    expect(r).toMatchObject({ ok: false, failure: { type: 'network' } });
  });

  it('a slow drip keeps the connection alive but ends in a timeout (the bound covers the body)', async () => {
    const s = await sim();
    // 8 bytes every 50 ms: a listing of a few kilobytes would take tens of seconds.
    s.setFault('coinpaprika', { kind: 'slow-drip', bytesPerTick: 8, intervalMs: 50, times: 1 });
    const TIMEOUT_MS = 400;
    const t0 = performance.now();
    const r = await requestJson({ url: listing(s) }, { ...HTTP, timeoutMs: TIMEOUT_MS });
    expect(r).toMatchObject({ ok: false, failure: { type: 'timeout' } });
    // The timeout plus a margin: quiet, the failure comes ~2 ms after it; the margin allows 250 ms
    // × the calibration's factor (a bound that covered only the headers would wait for the drip).
    expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + scaledBudget(250));
  });

  it('a slow drip that completes within the timeout is a success with the real body', async () => {
    const s = await sim();
    const clean = await requestJson({ url: listing(s) }, HTTP);
    s.setFault('coinpaprika', { kind: 'slow-drip', bytesPerTick: 1 << 16, intervalMs: 5, times: 1 });
    const dripped = await requestJson({ url: listing(s) }, HTTP);
    expect(dripped).toEqual(clean);
  });

  it('a fault mix fails about `rate` of requests, seeded, and counts every fault by label', async () => {
    const faults: Fault[] = [
      { kind: 'status', status: 503 },
      { kind: 'status', status: 429, retryAfterSec: 0 },
      { kind: 'malformed' },
      { kind: 'truncated' },
      { kind: 'reset' },
    ];
    const run = async () => {
      const s = await sim({ faultMix: { rate: 0.5, faults, seed: 11 } });
      const types: string[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await requestJson({ url: listing(s) }, HTTP);
        types.push(r.ok ? 'ok' : `${r.failure.type}${r.failure.status ? `-${r.failure.status}` : ''}`);
      }
      return { types, injected: s.stats().faults.coinpaprika ?? {} };
    };
    const a = await run();
    const b = await run();
    expect(b.types).toEqual(a.types);
    const failed = a.types.filter((t) => t !== 'ok').length;
    const injected = Object.values(a.injected).reduce((x, y) => x + y, 0);
    // Every injected fault became exactly one classified failure (no retries here), and no other.
    expect(failed).toBe(injected);
    expect(injected).toBeGreaterThan(70);
    expect(injected).toBeLessThan(130);
    const tally = (t: string) => a.types.filter((x) => x === t).length;
    expect(tally('http_status-503')).toBe(a.injected['status-503']);
    expect(tally('rate_limit-429')).toBe(a.injected['status-429']);
    expect(tally('parse')).toBe((a.injected.malformed ?? 0) + (a.injected.truncated ?? 0));
    expect(tally('network')).toBe(a.injected.reset);
  });

  it('the mix can be limited to some providers and switched off', async () => {
    const s = await sim({
      faultMix: { rate: 1, faults: [{ kind: 'status', status: 500 }], providers: ['codex'] },
    });
    expect((await fetch(listing(s))).status).toBe(200);
    s.setFaultMix({ rate: 1, faults: [{ kind: 'status', status: 500 }] });
    expect((await fetch(listing(s))).status).toBe(500);
    s.setFaultMix(null);
    expect((await fetch(listing(s))).status).toBe(200);
    expect(() => s.setFaultMix({ rate: 2, faults: [] })).toThrow(RangeError);
  });
});
