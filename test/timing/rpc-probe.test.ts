import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { referenceVar, rpcUrlVar } from '../../src/harness/rpc-config.ts';
import { startHarness } from '../../src/harness/service.ts';
import type { Clock, HarnessLog } from '../../src/harness/types.ts';
import { buildApp } from '../../src/http/app.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { type DemoChain, startDemoChains } from '../../src/sim/chains/index.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';

/**
 * The probes' timeout. Quiet, anvil answers a probe in 5–30 ms (through the proxy too) and the stall
 * test's cycle ends ~40 ms after the timeout; 1,500 ms is the reference machine's figure, × the
 * calibration's factor, so a busy machine's slow answer is not scored a timeout, and the stalled
 * probe's timeout stays far above the others' answers.
 */
const RPC_TIMEOUT_MS = Math.round(scaledBudget(1_500));

const PROVIDERS = ['alchemy', 'infura', 'quicknode', 'ankr', 'drpc', 'chainstack', 'publicnode', 'tenderly'];
let specs: BenchmarkSpec[];
let chain: DemoChain;
let proxy: RpcProxy;

beforeAll(async () => {
  const all = await loadSpecs(BENCHMARKS_DIR);
  // Ethereum only: one test chain of 120 blocks keeps the suite fast.
  specs = all
    .filter((s) => s.family === 'json-rpc')
    .map((s) => ({ ...s, providers: s.providers.map((p) => ({ ...p, chains: ['ethereum'] })) }));
  const now = Date.now();
  [chain] = (await startDemoChains({ seed: 3, origin: now - 120 * 12_000, chains: ['ethereum'] })) as [
    DemoChain,
  ];
  await chain.buildTo(now);
  proxy = await startRpcProxy(chain.node.url);
});

afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

/** A clock already past every offset of the slot: series fire at once, on time. */
const clockAt = (): Clock => ({
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
});
const pastSlot = () => Math.floor((Date.now() - 31_000) / 60_000) * 60_000;

function envFor(
  urls: (provider: string) => string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    [referenceVar('ethereum')]: chain.node.url,
    HARNESS_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
    HARNESS_REGION: 'us-east',
    // Our loop's delay is another rule's (rpc-loop-delay.test.ts): a loaded machine must not skip probes here.
    HARNESS_LOOP_DELAY_LIMIT_MS: '1000',
    ...extra,
  };
  for (const p of PROVIDERS) env[rpcUrlVar(p, 'ethereum')] = urls(p);
  return env;
}

async function cycle(
  env: Record<string, string>,
  log: HarnessLog = () => {},
): Promise<{ store: CountingStore; samples: Sample[]; registry: Registry; ms: number }> {
  const store = await openTestStore();
  const registry = new Registry();
  const harness = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    clock: clockAt(),
    autoStart: false,
    log,
  });
  const t0 = performance.now();
  const at = pastSlot();
  await harness.runCycle('rpc-latency', at);
  const ms = performance.now() - t0;
  await harness.stop();
  const samples: Sample[] = [];
  for (const m of Object.values(M))
    samples.push(...(await store.select({ metric: m, after: at - 1, until: at })));
  return { store, samples, registry, ms };
}

const lagOf = (samples: Sample[], provider: string) =>
  samples.find((s) => s.metric === M.headLagMs && s.labels.provider === provider)?.v;
const okOf = (samples: Sample[], provider: string) =>
  samples.filter((s) => s.metric === M.probeOk && s.labels.provider === provider);

describe('the json-rpc probe against a real node', () => {
  it('every method of every provider is answered correctly by a bare anvil, timed, with head lag 0', async () => {
    const { samples, store } = await cycle(envFor(() => chain.node.url));
    expect(store.appendCalls).toBe(1);
    for (const p of PROVIDERS) {
      const oks = okOf(samples, p);
      expect(oks.map((s) => s.labels.kind).sort()).toEqual([
        'balance',
        'block',
        'block-number',
        'call',
        'logs',
      ]);
      expect(oks.every((s) => s.v === 1)).toBe(true);
      const lat = samples.filter((s) => s.metric === M.latencyMs && s.labels.provider === p);
      for (const s of lat) expect(s.v).toBeGreaterThan(0);
      for (const s of lat) expect(s.v).toBeLessThan(RPC_TIMEOUT_MS);
      expect(samples.find((s) => s.metric === M.headLagMs && s.labels.provider === p)?.v).toBe(0);
      expect(samples.find((s) => s.metric === M.slotDown && s.labels.provider === p)?.v).toBe(0);
    }
    // Every sample is stamped at the slot start and labelled with the region.
    expect(new Set(samples.map((s) => s.t)).size).toBe(1);
    expect(samples.every((s) => s.labels.region === 'us-east')).toBe(true);
  });

  it('a stalled probe delays no other, and the slot is stored in one append', async () => {
    proxy.behave('alchemy', (m) => (m === 'eth_blockNumber' ? { kind: 'stall' } : { kind: 'pass' }));
    const { samples, store, ms } = await cycle(envFor((p) => `${proxy.url}/${p}`));
    expect(store.appendCalls).toBe(1);
    const stalled = okOf(samples, 'alchemy').find((s) => s.labels.kind === 'block-number');
    expect(stalled).toMatchObject({ v: 0, labels: { reason: 'timeout' } });
    expect(
      samples.find(
        (s) =>
          s.metric === M.latencyMs && s.labels.provider === 'alchemy' && s.labels.kind === 'block-number',
      )?.v,
    ).toBe(RPC_TIMEOUT_MS);
    // The others answered in far less than the stall's timeout (quiet, up to 30 ms against 1,500).
    const others = samples.filter((s) => s.metric === M.latencyMs && s.labels.provider !== 'alchemy');
    for (const s of others) expect(s.v).toBeLessThan(RPC_TIMEOUT_MS / 3);
    // One timeout and a little: anything that waited behind the stall (a retry, a probe queued
    // after it) would take a second timeout.
    expect(ms).toBeLessThan(2 * RPC_TIMEOUT_MS);
    proxy.behave('alchemy', () => ({ kind: 'pass' }));
  });

  it('classifies each failure by a closed list of reasons', async () => {
    proxy.behave('alchemy', (m) =>
      m === 'eth_getBalance' ? { kind: 'mutate', fn: (r) => ({ ...r, result: '0x1234' }) } : { kind: 'pass' },
    );
    proxy.behave('infura', (m) =>
      m === 'eth_getBlockByNumber'
        ? {
            kind: 'mutate',
            fn: (r) => ({ ...r, result: { ...(r.result as object), hash: `0x${'ab'.repeat(32)}` } }),
          }
        : { kind: 'pass' },
    );
    proxy.behave('quicknode', (m) => (m === 'eth_call' ? { kind: 'status', status: 503 } : { kind: 'pass' }));
    proxy.behave('ankr', (m) => (m === 'eth_getLogs' ? { kind: 'status', status: 429 } : { kind: 'pass' }));
    proxy.behave('drpc', (m) =>
      m === 'eth_blockNumber'
        ? { kind: 'mutate', fn: (r) => ({ ...r, result: undefined, error: { code: -32603, message: 'x' } }) }
        : { kind: 'pass' },
    );
    proxy.behave('chainstack', (m) =>
      m === 'eth_blockNumber' ? { kind: 'mutate', fn: (r) => ({ ...r, id: 999_999 }) } : { kind: 'pass' },
    );
    proxy.behave('publicnode', (m) =>
      m === 'eth_chainId' ? { kind: 'mutate', fn: (r) => ({ ...r, result: '0x38' }) } : { kind: 'pass' },
    );
    proxy.behave('tenderly', (m) =>
      m === 'eth_getBalance' ? { kind: 'status', status: 404 } : { kind: 'pass' },
    );
    const { samples, registry } = await cycle(envFor((p) => `${proxy.url}/${p}`));
    const reason = (p: string, kind: string) =>
      okOf(samples, p).find((s) => s.labels.kind === kind)?.labels.reason;
    expect(reason('alchemy', 'balance')).toBe('wrong_result');
    expect(reason('infura', 'block')).toBe('not_canonical');
    expect(reason('quicknode', 'call')).toBe('http_5xx');
    expect(reason('ankr', 'logs')).toBe('http_429');
    expect(reason('drpc', 'block-number')).toBe('rpc_error');
    expect(reason('chainstack', 'block-number')).toBe('malformed');
    expect(reason('publicnode', 'block-number')).toBe('wrong_chain');
    expect(reason('tenderly', 'balance')).toBe('http_other');
    // A non-canonical head counts as the failed-lag cap (failedValue); the others' other methods are fine.
    expect(lagOf(samples, 'infura')).toBe(60_000);
    expect(reason('alchemy', 'call')).toBeUndefined();
    const errors = await registry.getSingleMetricAsString('fetch_errors_total');
    expect(errors).toContain('provider="alchemy",error_type="wrong_result"');
    for (const p of PROVIDERS) proxy.behave(p, () => ({ kind: 'pass' }));
  });

  it('a made-up or stale head is wrong_result; a failed head probe counts as the cap, a stale canonical one its own lag', async () => {
    const reply = await fetch(chain.node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] }),
    });
    const first = ((await reply.json()) as { result: { timestamp: string } }).result;
    proxy.behave('alchemy', (m) =>
      m === 'eth_blockNumber' ? { kind: 'mutate', fn: (r) => ({ ...r, result: '0x0' }) } : { kind: 'pass' },
    );
    proxy.behave('infura', (m) =>
      m === 'eth_getBlockByNumber'
        ? { kind: 'mutate', fn: (r) => ({ ...r, result: first }) }
        : { kind: 'pass' },
    );
    proxy.behave('ankr', (m) =>
      m === 'eth_getBlockByNumber'
        ? {
            kind: 'mutate',
            fn: (r) => ({ ...r, result: undefined, error: { code: -32000, message: 'behind' } }),
          }
        : { kind: 'pass' },
    );
    const { samples } = await cycle(envFor((p) => `${proxy.url}/${p}`));
    const reason = (p: string, kind: string) =>
      okOf(samples, p).find((s) => s.labels.kind === kind)?.labels.reason;
    expect(reason('alchemy', 'block-number')).toBe('wrong_result');
    expect(reason('infura', 'block')).toBe('wrong_result');
    expect(reason('ankr', 'block')).toBe('rpc_error');
    const head = samples.find((s) => s.metric === M.headLagMs && s.labels.provider === 'drpc');
    expect(head?.v).toBe(0);
    // Block 1 is about 119 blocks behind: its own lag, far worse than the cap.
    expect(lagOf(samples, 'infura')).toBeGreaterThan(100 * 12_000);
    expect(lagOf(samples, 'ankr')).toBe(60_000);
    expect(lagOf(samples, 'alchemy')).toBe(0);
    for (const p of PROVIDERS) proxy.behave(p, () => ({ kind: 'pass' }));
  });

  it('a chain without a reference node is not measured; a refused key is skipped, never scored', async () => {
    const noRef = await cycle({ ...envFor(() => chain.node.url), [referenceVar('ethereum')]: '' });
    expect(noRef.samples).toEqual([]);
    proxy.behave('ankr', () => ({ kind: 'status', status: 401 }));
    const refused = await cycle(envFor((p) => `${proxy.url}/${p}`));
    expect(okOf(refused.samples, 'ankr')).toEqual([]);
    expect(await refused.registry.getSingleMetricAsString('harness_probes_skipped_total')).toMatch(
      /reason="key_refused"} 5/,
    );
    proxy.behave('ankr', () => ({ kind: 'pass' }));
  });
});

describe('keys and URLs are secrets', () => {
  it('a canary in every key and URL appears in no log, metric, label, API answer or dataset', async () => {
    const CANARY = 'CANARY7f3a9c';
    const env = envFor((p) => `${proxy.url}/${p}/${CANARY}`);
    for (const k of [
      'ALCHEMY_API_KEY',
      'INFURA_API_KEY',
      'ANKR_API_KEY',
      'DRPC_API_KEY',
      'TENDERLY_API_KEY',
      'QUICKNODE_API_KEY',
      'CHAINSTACK_API_KEY',
    ]) {
      env[k] = CANARY;
    }
    // Template-filled: the alchemy and ankr keys go into their documented hosts (unreachable here).
    delete env[rpcUrlVar('alchemy', 'ethereum')];
    delete env[rpcUrlVar('ankr', 'ethereum')];
    // TLS to a plain HTTP port; an unresolvable host; the others through the misbehaving proxy.
    env[rpcUrlVar('tenderly', 'ethereum')] = `${proxy.url.replace('http:', 'https:')}/tenderly/${CANARY}`;
    env[rpcUrlVar('publicnode', 'ethereum')] = `http://${CANARY.toLowerCase()}.invalid/${CANARY}`;
    proxy.behave('infura', () => ({ kind: 'status', status: 401, body: `{"error":"bad key ${CANARY}"}` }));
    proxy.behave('quicknode', (_m, url) => ({ kind: 'status', status: 500, body: `{"error":"at ${url}"}` }));
    proxy.behave('drpc', () => ({ kind: 'reset' }));
    const lines: string[] = [];
    const log: HarnessLog = (level, msg, fields) =>
      lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
    const { samples, registry, store } = await cycle(env, log);
    expect(samples.length).toBeGreaterThan(0);
    const reasons = new Set(
      samples.filter((s) => s.metric === M.probeOk && s.v === 0).map((s) => s.labels.reason),
    );
    expect([...reasons].sort()).toEqual(expect.arrayContaining(['connect', 'http_5xx', 'tls']));
    const haystack = [
      lines.join('\n'),
      await registry.metrics(),
      JSON.stringify(samples.map((s) => s.labels)),
    ];
    const pub = createPublication({ specs, store, config: testConfig(), clock: () => Date.now() + 60_000 });
    const app = buildApp({
      config: testConfig(),
      publication: pub,
      store,
      metrics: registry,
      clock: () => Date.now() + 60_000,
    });
    for (const path of [
      '/api/stat/rpc-latency',
      '/api/stat/rpc-head-lag',
      '/api/benchmarks',
      '/api/audit/rpc-latency/quicknode',
      '/api/audit/rpc-latency/drpc?window=24h',
      '/api/series/rpc-latency?range=24h',
      '/api/markdown',
      '/metrics',
    ]) {
      const res = await app.request(path);
      expect(res.status, path).toBeLessThan(500);
      haystack.push(await res.text());
    }
    pub.close();
    for (const text of haystack) expect(text.toLowerCase()).not.toContain(CANARY.toLowerCase());
    for (const p of PROVIDERS) proxy.behave(p, () => ({ kind: 'pass' }));
  });
});
