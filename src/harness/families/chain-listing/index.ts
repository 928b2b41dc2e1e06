import type { Family } from '../family.ts';
import { NETWORK_ADAPTERS } from './adapters/registry.ts';
import { chainListingAudit } from './audit.ts';
import { CHAIN_LISTING_METRIC_DECLARATIONS, CHAIN_LISTING_METRICS } from './metrics.ts';
import { runChainListingProbe } from './probe.ts';

/**
 * chain-listing: each provider's public supported-networks listing, read and counted once per
 * chain id. Published by the shared `latest` derivation (a provider's latest successful count);
 * the audit lists what each count is made of. Adds no ranking-row field.
 */
export const chainListing: Family = {
  name: 'chain-listing',
  derivation: 'latest',
  cadence: '6h',
  slotOffsetMs: 0,
  metrics: CHAIN_LISTING_METRIC_DECLARATIONS,
  // A listing writes its count whenever it succeeds; a failed refresh writes nothing.
  originMetrics: [CHAIN_LISTING_METRICS.networksSupported],
  derivationMetrics: [],
  rowFields: [],
  adapterProviders: [...NETWORK_ADAPTERS.keys()],
  probe: runChainListingProbe,
  audit: chainListingAudit,
};
