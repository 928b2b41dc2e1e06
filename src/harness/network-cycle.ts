import { METRICS } from '../core/metric-names.ts';
import type { Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { HarnessProvider } from './config.ts';
import { countNetworks } from './network/contract.ts';
import { NETWORK_ADAPTERS } from './network/registry.ts';
import type { CycleReport, ProviderOutcome } from './report.ts';
import { adapterContext, checkConfigured, type HarnessRuntime, providerSemaphore } from './runtime.ts';
import { guard } from './types.ts';

/**
 * One network-coverage cycle: every provider's listing in parallel, counted once per unique chain id
 * (mainnets only). A failure writes no sample (the last good count stands) and bumps fetch_errors_total.
 */
export async function runNetworkCycle(
  rt: HarnessRuntime,
  spec: BenchmarkSpec,
  at: number,
  signal: AbortSignal,
): Promise<CycleReport> {
  const started = performance.now();
  const samples: Sample[] = [];
  const outcomes = await Promise.all(
    spec.providers
      .filter((p) => !rt.onlyProviders || rt.onlyProviders.has(p.slug))
      .map(async (p): Promise<ProviderOutcome> => {
        const t0 = performance.now();
        const adapter = NETWORK_ADAPTERS.get(p.slug);
        if (!adapter) {
          rt.log('warn', `no network adapter for ${p.slug}`, { provider: p.slug });
          return { provider: p.slug, status: 'unsupported', durationMs: 0 };
        }
        const slug = p.slug as HarnessProvider;
        if (!checkConfigured(rt, slug)) return { provider: slug, status: 'not_configured', durationMs: 0 };
        const r = await providerSemaphore(rt, slug).run(() =>
          guard(() => adapter.list(adapterContext(rt, slug, signal))),
        );
        const durationMs = performance.now() - t0;
        // An empty supported-networks listing is a broken response, not a provider with no networks.
        const counted = r.ok ? countNetworks(r.value) : [];
        if (!r.ok || counted.length === 0) {
          const failure = r.ok
            ? { type: 'parse' as const, message: 'empty listing (no mainnet networks)' }
            : r.failure;
          rt.metrics.fetchErrors.inc({ benchmark: spec.slug, provider: slug, error_type: failure.type });
          rt.log('warn', `${slug}: network listing failed (${failure.type}): ${failure.message}`, {
            benchmark: spec.slug,
            provider: slug,
            error_type: failure.type,
          });
          return { provider: slug, status: 'failed', failure, durationMs };
        }
        samples.push({
          metric: METRICS.networksSupported,
          labels: { provider: slug },
          t: at,
          v: counted.length,
        });
        rt.metrics.networksSupported.set({ provider: slug }, counted.length);
        for (const old of rt.listedLabels.get(slug) ?? []) rt.metrics.networkListed.remove(old);
        const exported: Array<{ provider: string; chain_id: string; name: string }> = [];
        for (const n of counted) {
          const labels = { provider: slug, chain_id: n.key, name: n.name };
          samples.push({ metric: METRICS.networkListed, labels, t: at, v: 1 });
          rt.metrics.networkListed.set(labels, 1);
          exported.push(labels);
        }
        rt.listedLabels.set(slug, exported);
        return { provider: slug, status: 'ok', count: counted.length, durationMs };
      }),
  );
  const written = samples.length > 0 ? await rt.store.append(samples) : 0;
  return {
    benchmark: spec.slug,
    at,
    durationMs: performance.now() - started,
    samplesWritten: written,
    aborted: signal.aborted,
    providers: outcomes,
  };
}
