import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { type Harness, startHarness } from '../../src/harness/service.ts';
import type { LogLevel } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import type { FaultSetting } from '../../src/sim/faults.ts';
import { type Simulator, startSimulator } from '../../src/sim/server.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';

const T1 = Date.UTC(2026, 6, 23, 0, 0, 0);
const T2 = T1 + 6 * 3_600_000;
let specs: BenchmarkSpec[];
beforeAll(async () => {
  specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function setup(opts: { env?: Record<string, string>; drop?: string[] } = {}) {
  const sim: Simulator = await startSimulator({ seed: 7 });
  const store = await openTestStore();
  cleanup.push(() => store.close());
  const registry = new Registry();
  const logs: Array<{ level: LogLevel; msg: string }> = [];
  const env = simulatorEnv(sim.baseUrls, sim.keys, { HARNESS_TIMEOUT_MS: '1000', ...opts.env });
  for (const k of opts.drop ?? []) delete env[k];
  const harness: Harness = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    autoStart: false,
    sleep: async () => {},
    log: (level, msg) => logs.push({ level, msg }),
  });
  cleanup.push(async () => {
    await harness.stop();
    await sim.close();
  });
  return { sim, store, registry, harness, logs };
}

async function counts(store: CountingStore, at: number) {
  const s = await store.latest({ metric: METRICS.networksSupported, at });
  return Object.fromEntries(s.map((x) => [x.labels.provider, { v: x.v, t: x.t }]));
}

describe('network-coverage cycle against the simulator', () => {
  it('counts every provider once per unique mainnet id, in ONE append at the slot time', async () => {
    const { sim, store, harness } = await setup();
    const report = await harness.runCycle('network-coverage', T1);
    expect(store.appendCalls).toBe(1);
    const c = await counts(store, T1);
    for (const [provider, n] of Object.entries(sim.expectedNetworks))
      expect(c[provider]).toEqual({ v: n, t: T1 });
    expect(report.providers.every((p) => p.status === 'ok')).toBe(true);
    // The audit detail: one network_listed per counted network, no testnets.
    const listed = await store.latest({
      metric: METRICS.networkListed,
      matchers: [eq('provider', 'mobula')],
      at: T1,
    });
    expect(listed).toHaveLength(sim.expectedNetworks.mobula as number);
    expect(listed.some((s) => s.labels.chain_id === 'eip155:1')).toBe(true);
    expect(listed.some((s) => /testnet/i.test(s.labels.name ?? ''))).toBe(false);
    expect(listed.every((s) => s.t === T1 && s.v === 1)).toBe(true);
  });

  it('a failing provider writes no sample, keeps its last good count and bumps fetch_errors_total', async () => {
    const { sim, store, harness, registry } = await setup();
    await harness.runCycle('network-coverage', T1);
    const faults: Array<[string, FaultSetting, string]> = [
      ['codex', { kind: 'status', status: 401 }, 'auth'],
      ['geckoterminal', { kind: 'status', status: 429, retryAfterSec: 0 }, 'rate_limit'],
      ['mobula', { kind: 'status', status: 503 }, 'http_status'],
      ['coinpaprika', { kind: 'malformed' }, 'parse'],
      ['coingecko', { kind: 'hang' }, 'timeout'],
      ['covalent', { kind: 'oversized', bytes: 64 * 1024 * 1024 }, 'oversized'],
      ['coinstats', { kind: 'empty' }, 'parse'],
    ];
    for (const [p, f] of faults) sim.setFault(p, f);
    const report = await harness.runCycle('network-coverage', T2);
    const c = await counts(store, T2);
    for (const [p, , type] of faults) {
      expect(c[p]).toEqual({ v: sim.expectedNetworks[p], t: T1 });
      expect(report.providers.find((x) => x.provider === p)?.failure?.type).toBe(type);
    }
    expect(c['sim-dune']).toEqual({ v: sim.expectedNetworks['sim-dune'], t: T2 });
    const text = await registry.metrics();
    expect(text).toContain(
      'fetch_errors_total{benchmark="network-coverage",provider="codex",error_type="auth"} 1',
    );
    expect(text).toContain(
      'fetch_errors_total{benchmark="network-coverage",provider="covalent",error_type="oversized"} 1',
    );
    expect(text).toMatch(
      new RegExp(`networks_supported\\{provider="codex"\\} ${sim.expectedNetworks.codex}`),
    );
  });

  it('a provider whose key is missing is not configured: skipped, logged once, exported 0, never zero', async () => {
    const { store, harness, registry, logs } = await setup({
      drop: ['COVALENT_API_KEY', 'SIM_DUNE_API_KEY'],
    });
    await harness.runCycle('network-coverage', T1);
    await harness.runCycle('network-coverage', T2);
    const c = await counts(store, T2);
    expect(c.covalent).toBeUndefined();
    // Sim's key is optional: it still runs without one.
    expect(c['sim-dune']?.t).toBe(T2);
    const text = await registry.metrics();
    expect(text).toContain('provider_configured{provider="covalent"} 0');
    expect(text).toContain('provider_configured{provider="sim-dune"} 1');
    expect(logs.filter((l) => l.msg.includes('covalent not configured'))).toHaveLength(1);
  });

  it('a wrong key gets the provider 401 body and is an auth failure', async () => {
    const { store, harness } = await setup({ env: { MOBULA_API_KEY: 'wrong' } });
    const r = await harness.runCycle('network-coverage', T1);
    const m = r.providers.find((p) => p.provider === 'mobula');
    expect(m?.failure).toMatchObject({ type: 'auth', status: 401 });
    expect(m?.failure?.message).toContain('invalid or missing API key');
    expect((await counts(store, T1)).mobula).toBeUndefined();
  });
});
