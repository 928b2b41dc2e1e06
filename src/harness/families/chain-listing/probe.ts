import type { Sample } from '../../../core/samples.ts';
import { evmChains } from '../../chains/evm-chains.ts';
import type { HarnessProvider } from '../../config.ts';
import type { CycleReport, ProviderOutcome } from '../../report.ts';
import { adapterContext, checkConfigured, providerSemaphore } from '../../runtime.ts';
import { guard } from '../../types.ts';
import type { ProbeReports, ProbeRun } from '../family.ts';
import { providerUnion } from '../union.ts';
import { countNetworks, type NetworkCount } from './adapters/contract.ts';
import { checkListing, type DroppedEntry } from './adapters/entries.ts';
import { NETWORK_ADAPTERS } from './adapters/registry.ts';
import { CHAIN_LISTING_METRICS as METRICS } from './metrics.ts';

/** Audit detail is bounded: a listing of junk must not write thousands of series per cycle. */
const MAX_EXCLUDED_SAMPLES = 500;
const MAX_LABEL_CHARS = 120;

const label = (s: string) => (s.length > MAX_LABEL_CHARS ? `${s.slice(0, MAX_LABEL_CHARS - 1)}…` : s);

/** network_listing_excluded samples: dropped (invalid) entries, then testnets, at most 500. */
function excludedSamples(
  provider: string,
  dropped: readonly DroppedEntry[],
  count: NetworkCount,
  t: number,
): Sample[] {
  const rows = [
    ...dropped.map((d) => ({
      kind: 'dropped',
      reason: d.reason,
      chain_id: '',
      name: d.name,
      raw_id: d.rawId,
    })),
    ...count.testnets.map((n) => ({
      kind: 'testnet',
      reason: n.reason,
      chain_id: n.chainId,
      name: n.name,
      raw_id: n.rawId,
    })),
  ];
  return rows.slice(0, MAX_EXCLUDED_SAMPLES).map((r) => ({
    metric: METRICS.networkExcluded,
    labels: {
      provider,
      kind: r.kind,
      reason: r.reason,
      chain_id: label(r.chain_id),
      name: label(r.name),
      raw_id: label(r.raw_id),
    },
    t,
    v: 1,
  }));
}

/**
 * One chain-listing probe: every provider of the family's benchmarks (their union, each asked
 * once) lists its networks in parallel, each entry resolved to one chain id (CAIP-2, or
 * unmapped:<slug>), testnets dropped by the shared detector, counted once per id. Invalid entries
 * are dropped and counted; the listing fails only when its response is malformed or more than half
 * its entries are invalid. A failure writes no sample (the last good count stands) and bumps
 * fetch_errors_total of every benchmark listing the provider.
 */
export async function runChainListingProbe(run: ProbeRun): Promise<ProbeReports> {
  const { rt, at, signal } = run;
  const started = performance.now();
  const samples: Sample[] = [];
  // Loaded before any request starts: importing viem/chains blocks the event loop for ~1 s the first
  // time (evm-chains.ts), which would fire the timeouts of requests in flight.
  const evm = await evmChains();
  const union = providerUnion(run.benchmarks).filter(
    (p) => !rt.onlyProviders || rt.onlyProviders.has(p.slug),
  );
  const outcomes = await Promise.all(
    union.map(async ({ slug: provider, benchmarks }): Promise<ProviderOutcome> => {
      const t0 = performance.now();
      const adapter = NETWORK_ADAPTERS.get(provider);
      if (!adapter) {
        rt.log('warn', `no network adapter for ${provider}`, { provider });
        return { provider, status: 'unsupported', durationMs: 0 };
      }
      const slug = provider as HarnessProvider;
      if (!checkConfigured(rt, slug)) return { provider: slug, status: 'not_configured', durationMs: 0 };
      const listed = await providerSemaphore(rt, slug).run(() =>
        guard(() => adapter.list(adapterContext(rt, slug, signal))),
      );
      if (listed.ok && listed.value.dropped.length > 0) {
        for (const d of listed.value.dropped)
          rt.metrics.listingEntriesDropped.inc({ provider: slug, reason: d.reason });
        rt.log('warn', `${slug}: ${listed.value.dropped.length} invalid listing entries dropped`, {
          benchmark: benchmarks.join(','),
          provider: slug,
          first: listed.value.dropped[0]?.detail,
        });
      }
      const r = listed.ok ? checkListing(listed.value, `${slug} listing`) : listed;
      const count = r.ok ? countNetworks(r.value, evm) : null;
      const durationMs = performance.now() - t0;
      // An empty supported-networks listing is a broken response, not a provider with no networks.
      if (!r.ok || !count || count.counted.length === 0) {
        const failure = r.ok
          ? { type: 'parse' as const, message: 'empty listing (no mainnet networks)' }
          : r.failure;
        for (const benchmark of benchmarks)
          rt.metrics.fetchErrors.inc({ benchmark, provider: slug, error_type: failure.type });
        rt.log('warn', `${slug}: network listing failed (${failure.type}): ${failure.message}`, {
          benchmark: benchmarks.join(','),
          provider: slug,
          error_type: failure.type,
        });
        return { provider: slug, status: 'failed', failure, durationMs };
      }
      const counted = count.counted;
      samples.push({
        metric: METRICS.networksSupported,
        labels: { provider: slug },
        t: at,
        v: counted.length,
      });
      rt.metrics.networksSupported.set({ provider: slug }, counted.length);
      for (const old of rt.listedLabels.get(slug) ?? []) rt.metrics.networkListed.remove(old);
      const exported: Array<{ provider: string; chain_id: string; name: string; raw_id: string }> = [];
      for (const n of counted) {
        const labels = {
          provider: slug,
          chain_id: label(n.chainId),
          name: label(n.name),
          raw_id: label(n.rawId),
        };
        samples.push({ metric: METRICS.networkListed, labels, t: at, v: 1 });
        rt.metrics.networkListed.set(labels, 1);
        exported.push(labels);
      }
      rt.listedLabels.set(slug, exported);
      samples.push(...excludedSamples(slug, r.value.dropped, count, at));
      return { provider: slug, status: 'ok', count: counted.length, durationMs };
    }),
  );
  const written = await run.write(samples);
  const reports = new Map<string, CycleReport>();
  for (const spec of run.benchmarks) {
    // Each benchmark reports its own providers; the samples were written once for all of them.
    const own = new Set(spec.providers.map((p) => p.slug));
    reports.set(spec.slug, {
      benchmark: spec.slug,
      at,
      durationMs: performance.now() - started,
      samplesWritten: written,
      aborted: signal.aborted,
      providers: outcomes.filter((o) => own.has(o.provider)),
    });
  }
  return reports;
}
