import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface HarnessMetrics {
  readonly networksSupported: Gauge<'provider'>;
  readonly networkListed: Gauge<'provider' | 'chain_id' | 'name' | 'raw_id'>;
  readonly listingEntriesDropped: Counter<'provider' | 'reason'>;
  readonly fetchErrors: Counter<'benchmark' | 'provider' | 'error_type'>;
  readonly tokenTradeCount: Gauge<'provider' | 'chain' | 'token'>;
  readonly tokenTradeCapturePct: Gauge<'provider' | 'chain' | 'token'>;
  readonly tokenTradeUnionCount: Gauge<'chain' | 'token'>;
  readonly tokenTradeProbeOk: Gauge<'provider' | 'chain' | 'token'>;
  readonly tokenTradeCapped: Gauge<'provider' | 'chain' | 'token'>;
  readonly providerUnresponsive: Gauge<'benchmark' | 'provider'>;
  readonly providerConfigured: Gauge<'provider'>;
  readonly cycleDuration: Histogram<'benchmark'>;
  readonly cellsAbandoned: Counter<'benchmark' | 'reason'>;
  readonly probesSkipped: Counter<'benchmark' | 'region' | 'provider' | 'reason'>;
}

/** Registers the harness metrics, reusing any already on the registry (a second harness on one registry). */
export function harnessMetrics(registry: Registry): HarnessMetrics {
  function get<M>(name: string, make: () => M): M {
    return (registry.getSingleMetric(name) as M | undefined) ?? make();
  }
  const registers = [registry];
  const cell = ['provider', 'chain', 'token'] as const;
  return {
    networksSupported: get(
      'networks_supported',
      () =>
        new Gauge({
          name: 'networks_supported',
          help: 'Mainnet networks counted in the latest successful listing (unique chain ids)',
          labelNames: ['provider'],
          registers,
        }),
    ),
    networkListed: get(
      'network_listed',
      () =>
        new Gauge({
          name: 'network_listed',
          help: '1 per network counted in the latest successful listing (chain_id: CAIP-2 or unmapped:<slug>)',
          labelNames: ['provider', 'chain_id', 'name', 'raw_id'],
          registers,
        }),
    ),
    listingEntriesDropped: get(
      'listing_entries_dropped_total',
      () =>
        new Counter({
          name: 'listing_entries_dropped_total',
          help: 'Invalid network listing entries dropped (the rest of the listing still counts)',
          labelNames: ['provider', 'reason'],
          registers,
        }),
    ),
    fetchErrors: get(
      'fetch_errors_total',
      () =>
        new Counter({
          name: 'fetch_errors_total',
          help: 'Failed provider fetches by error type',
          labelNames: ['benchmark', 'provider', 'error_type'],
          registers,
        }),
    ),
    tokenTradeCount: get(
      'token_trade_count',
      () =>
        new Gauge({
          name: 'token_trade_count',
          help: 'Distinct transactions returned in the window',
          labelNames: cell,
          registers,
        }),
    ),
    tokenTradeCapturePct: get(
      'token_trade_capture_pct',
      () =>
        new Gauge({
          name: 'token_trade_capture_pct',
          help: 'Trade capture rate against the largest count on the cell, percent',
          labelNames: cell,
          registers,
        }),
    ),
    tokenTradeUnionCount: get(
      'token_trade_union_count',
      () =>
        new Gauge({
          name: 'token_trade_union_count',
          help: 'Distinct transactions across all providers on the cell',
          labelNames: ['chain', 'token'],
          registers,
        }),
    ),
    tokenTradeProbeOk: get(
      'token_trade_probe_ok',
      () =>
        new Gauge({
          name: 'token_trade_probe_ok',
          help: '1 when the probe neither timed out nor got a 5xx',
          labelNames: cell,
          registers,
        }),
    ),
    tokenTradeCapped: get(
      'token_trade_capped',
      () =>
        new Gauge({
          name: 'token_trade_capped',
          help: '1 when the provider hard row limit was hit',
          labelNames: cell,
          registers,
        }),
    ),
    providerUnresponsive: get(
      'provider_unresponsive',
      () =>
        new Gauge({
          name: 'provider_unresponsive',
          help: '1 when the last three cycles were cycles of 5xx (half or more of the probes got a 5xx)',
          labelNames: ['benchmark', 'provider'],
          registers,
        }),
    ),
    providerConfigured: get(
      'provider_configured',
      () =>
        new Gauge({
          name: 'provider_configured',
          help: '0 when the provider needs an API key and none is configured',
          labelNames: ['provider'],
          registers,
        }),
    ),
    cellsAbandoned: get(
      'harness_cells_abandoned_total',
      () =>
        new Counter({
          name: 'harness_cells_abandoned_total',
          help: 'Cells our own cycle deadline or shutdown cut short (nothing stored for them)',
          labelNames: ['benchmark', 'reason'],
          registers,
        }),
    ),
    probesSkipped: get(
      'harness_probes_skipped_total',
      () =>
        new Counter({
          name: 'harness_probes_skipped_total',
          help: 'Probes not sent or not scored on our side (deadline, event-loop lag, no reference answer, a stale reference head, key refused on every probe of the slot), each also stored as an exclusion sample',
          labelNames: ['benchmark', 'region', 'provider', 'reason'],
          registers,
        }),
    ),
    cycleDuration: get(
      'harness_cycle_duration_seconds',
      () =>
        new Histogram({
          name: 'harness_cycle_duration_seconds',
          help: 'Wall time of one harness cycle',
          labelNames: ['benchmark'],
          buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
          registers,
        }),
    ),
  };
}
