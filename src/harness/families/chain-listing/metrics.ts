import type { MetricDeclaration } from '../../../core/family.ts';

/** Metric names the chain-listing probe writes (Prometheus data model). */
export const CHAIN_LISTING_METRICS = {
  /** {provider}: networks counted in the latest successful listing. */
  networksSupported: 'networks_supported',
  /**
   * {provider, chain_id, name, raw_id}: 1 per network counted in that listing (audit detail). chain_id
   * is the CAIP-2 id it was counted under, or `unmapped:<slug>`; raw_id is the provider's own id.
   */
  networkListed: 'network_listed',
  /**
   * {provider, kind, reason, chain_id, name, raw_id}: 1 per listing entry not counted (audit detail):
   * kind `dropped` (invalid entry; reason missing_id, bad_id, bad_entry) or `testnet` (reason
   * provider_flag, chain_metadata, name). At most 500 per listing.
   */
  networkExcluded: 'network_listing_excluded',
} as const;

const M = CHAIN_LISTING_METRICS;

export const CHAIN_LISTING_METRIC_DECLARATIONS: readonly MetricDeclaration[] = [
  {
    name: M.networksSupported,
    labels: ['provider'],
    help: 'Mainnet networks counted in the latest successful listing (unique chain ids)',
  },
  {
    name: M.networkListed,
    labels: ['provider', 'chain_id', 'name', 'raw_id'],
    help: '1 per network counted in the latest successful listing (chain_id: CAIP-2 or unmapped:<slug>)',
  },
  {
    name: M.networkExcluded,
    labels: ['provider', 'kind', 'reason', 'chain_id', 'name', 'raw_id'],
    help: '1 per listing entry not counted: kind dropped (invalid) or testnet, with the reason',
  },
];
