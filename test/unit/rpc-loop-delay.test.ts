import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { loopDelayExclusions } from '../../src/harness/families/json-rpc/probe.ts';
import { OFFSET_SPAN_MS, type Series } from '../../src/harness/families/json-rpc/series.ts';
import { LoopDelayWatch } from '../../src/harness/loop-delay.ts';
import { referenceVar, rpcUrlVar } from '../../src/harness/rpc-config.ts';
import { startHarness } from '../../src/harness/service.ts';
import type { Clock } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { startJsonRpcNode, testNodeAnswer } from '../helpers/json-rpc-node.ts';
import { openTestStore } from '../helpers/memory-store.ts';

/** Keeps our event loop busy for `ms`: what a loaded machine does to every probe in flight. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: nothing else runs on the loop meanwhile
  }
}

describe('the loop-delay watch', () => {
  it("sees a block of our loop inside a probe's interval", async () => {
    const watch = new LoopDelayWatch();
    watch.start();
    try {
      await new Promise((r) => setTimeout(r, 5));
      const from = performance.now();
      block(25);
      const to = performance.now();
      expect(await watch.delayOver(from, to)).toBeGreaterThanOrEqual(20);
    } finally {
      watch.stop();
    }
  });

  it('excludes only correct answers: a failed or timed-out probe delayed as much is still scored', () => {
    const s = (provider: string): Series => ({ provider, chain: 'ethereum', kind: 'logs', offsetMs: 0 });
    const [a, b, c] = [s('alchemy'), s('infura'), s('ankr')];
    const out = loopDelayExclusions(
      [
        { series: a, ok: true, ms: 30 },
        { series: b, ok: false, reason: 'timeout' },
        { series: c, ok: true, ms: 30 },
      ],
      new Map([
        [a, 40],
        [b, 40],
        [c, 1],
      ]),
      2,
    );
    expect(out.map((o) => ('skipped' in o ? o.skipped : 'ok' in o && o.ok ? 'scored' : 'failed'))).toEqual([
      'loop_delay',
      'failed',
      'scored',
    ]);
  });
});

/** Providers answering after the same short delay: the only difference between them is the slot's draw. */
const ANSWER_MS = 4;
let node: Awaited<ReturnType<typeof startJsonRpcNode>>;
let url = '';
const GENESIS = Date.UTC(2026, 5, 1, 0, 0);
const SLOT0 = Date.UTC(2026, 5, 1, 12, 0);
let now = SLOT0;
beforeAll(async () => {
  node = await startJsonRpcNode(({ path, method, params }) => {
    const result = testNodeAnswer(
      method,
      params,
      Math.floor((now - GENESIS) / 2000),
      (n) => GENESIS + n * 2000,
    );
    if (path.startsWith('/reference') || method === 'eth_chainId') return { result };
    return { result, delayMs: ANSWER_MS, ...(path.startsWith('/failing') ? { status: 500 } : {}) };
  });
  url = node.url;
});
afterAll(() => node.close());

/** Every series of a slot is sent at once (offsets elapse immediately); the deadline never fires. */
const clock: Clock = {
  now: () => now,
  setTimeout: (fn, ms) => (ms > OFFSET_SPAN_MS ? null : setImmediate(fn)),
  clearTimeout: (h) => {
    if (h !== null) clearImmediate(h as NodeJS.Immediate);
  },
};

describe('our overhead is measured per probe', () => {
  it('under uniform load every provider loses the same share of its correct answers, and a failing one none', async () => {
    const all: BenchmarkSpec[] = (await loadSpecs(BENCHMARKS_DIR)).filter((s) => s.family === 'json-rpc');
    const slugs = (all[0]?.providers ?? []).map((p) => p.slug).slice(0, 5);
    const [failing, ...healthy] = slugs as [string, ...string[]];
    const specs = all.map((s) => ({
      ...s,
      providers: s.providers
        .filter((p) => slugs.includes(p.slug))
        .map((p) => ({ ...p, chains: ['ethereum'] })),
    }));
    const env: Record<string, string> = {
      [referenceVar('ethereum')]: `${url}/reference`,
      HARNESS_REGION: 'us-east',
    };
    for (const p of healthy) env[rpcUrlVar(p, 'ethereum')] = `${url}/provider/${p}`;
    env[rpcUrlVar(failing, 'ethereum')] = `${url}/failing/${failing}`;
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
    // The load: our loop is blocked 3 ms of every 6, whoever's answer is in flight.
    const load = setInterval(() => block(3), 3);
    try {
      for (let i = 0; i < 20; i++) {
        now = SLOT0 + i * 60_000;
        await harness.runCycle('rpc-latency', now);
      }
    } finally {
      clearInterval(load);
      await harness.stop();
    }
    const excluded = await store.select({ metric: M.probeExcluded, after: 0, until: now });
    const scored = await store.select({ metric: M.probeOk, after: 0, until: now });
    const share = (p: string) => {
      const lost = excluded.filter((s) => s.labels.provider === p && s.labels.reason === 'loop_delay').length;
      const kept = scored.filter((s) => s.labels.provider === p && s.v === 1).length;
      return lost / (lost + kept);
    };
    const shares = healthy.map(share);
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    expect(mean).toBeGreaterThan(0);
    for (const s of shares) expect(Math.abs(s - mean)).toBeLessThan(0.2);
    // A provider's failure is never turned into our exclusion: every one of its 100 probes is scored.
    expect(excluded.filter((s) => s.labels.provider === failing && s.labels.reason === 'loop_delay')).toEqual(
      [],
    );
    expect(scored.filter((s) => s.labels.provider === failing).length).toBe(100);
  });
});
