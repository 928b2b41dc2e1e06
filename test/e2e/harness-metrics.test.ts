import { spawnSync } from 'node:child_process';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { type Simulator, startSimulator } from '../../src/sim/server.ts';
import { createMemoryStore } from '../helpers/memory-store.ts';

const T = Date.UTC(2026, 6, 23, 12, 0, 0);
let exposition = '';
let sim: Simulator;

beforeAll(async () => {
  const specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
  sim = await startSimulator({ seed: 9, tradesPerHour: 200 });
  sim.setFault('coinstats', { kind: 'status', status: 401 });
  const env = simulatorEnv(sim.baseUrls, sim.keys);
  delete env.COVALENT_API_KEY;
  const registry = new Registry();
  const h = startHarness({
    store: createMemoryStore(),
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    tokens: [REFERENCE_TOKENS[2], REFERENCE_TOKENS[8]].filter((t) => t !== undefined),
    autoStart: false,
  });
  await h.runCycle('network-coverage', T);
  await h.runCycle('token-trade-coverage', T);
  await h.stop();
  // A second harness on the same registry reuses the metrics instead of throwing.
  startHarness({
    store: createMemoryStore(),
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    autoStart: false,
  });
  exposition = await registry.metrics();
});
afterAll(async () => {
  await sim.close();
});

function promtoolPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

describe('harness Prometheus exposition', () => {
  it('exports every harness metric with the documented labels', () => {
    for (const line of [
      /^networks_supported\{provider="mobula"\} \d+$/m,
      /^network_listed\{provider="codex",chain_id="eip155:1",name="Ethereum",raw_id="1"\} 1$/m,
      /^fetch_errors_total\{benchmark="network-coverage",provider="coinstats",error_type="auth"\} 1$/m,
      /^token_trade_count\{provider="bitquery",chain="ethereum",token="PEPE"\} \d+$/m,
      /^token_trade_capture_pct\{provider="mobula",chain="stellar",token="yXLM"\} 100$/m,
      /^provider_unresponsive\{benchmark="token-trade-coverage",provider="codex"\} 0$/m,
      /^provider_configured\{provider="covalent"\} 0$/m,
      /^provider_configured\{provider="mobula"\} 1$/m,
      /^harness_cycle_duration_seconds_count\{benchmark="token-trade-coverage"\} 1$/m,
    ]) {
      expect(exposition).toMatch(line);
    }
    expect(exposition).not.toMatch(/token_trade_capture_pct\{provider="codex",chain="stellar"/);
  });

  it('passes promtool check metrics (required in CI)', () => {
    const promtool = promtoolPath();
    if (!promtool) {
      // CI installs promtool (Debian package `prometheus`): its absence there is a failure, not a skip.
      expect(process.env.CI, 'promtool is required when CI=true').not.toBe('true');
      // Locally without promtool: at least check every sample belongs to a declared metric family.
      const declared = new Set([...exposition.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => m[1]));
      for (const l of exposition.split('\n').filter((x) => x && !x.startsWith('#'))) {
        const name = l.split(/[{ ]/)[0] ?? '';
        expect(declared.has(name.replace(/_(bucket|sum|count)$/, '')) || declared.has(name)).toBe(true);
      }
      return;
    }
    const r = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    // Exit 1 = the exposition does not parse. Exit 3 = lint findings only: the one accepted finding is
    // the `_count` suffix of token_trade_count / token_trade_union_count, names fixed by the store
    // contract (src/core/metric-names.ts).
    const findings = `${r.stdout}${r.stderr}`.split('\n').filter(Boolean);
    const accepted =
      /^token_trade(_union)?_count non-histogram and non-summary metrics should not have "_count" suffix$/;
    expect(findings.filter((f) => !accepted.test(f))).toEqual([]);
    expect([0, 3]).toContain(r.status);
  });
});
