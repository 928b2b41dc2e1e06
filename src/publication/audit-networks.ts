import type { Audit } from '../core/api-schemas.ts';
import { isoTime } from '../core/format.ts';
import { METRICS } from '../core/metric-names.ts';
import type { Matcher } from '../core/samples.ts';
import type { SampleStore } from '../store/sample-store.ts';

/** network-coverage audit: every network counted in the provider's latest successful listing. */
export async function auditNetworks(
  store: SampleStore,
  metric: string,
  provider: Matcher,
  evalTime: number,
): Promise<Pick<Audit, 'asOf' | 'networks'>> {
  const [latest] = await store.latest({ metric, matchers: [provider], at: evalTime });
  if (!latest) return { asOf: null, networks: [] };
  const listed = await store.select({
    metric: METRICS.networkListed,
    matchers: [provider],
    after: latest.t - 1,
    until: latest.t,
  });
  const networks = listed
    .map((s) => ({ chainId: s.labels.chain_id ?? '', name: s.labels.name ?? '' }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.chainId.localeCompare(b.chainId));
  return { asOf: isoTime(latest.t), networks };
}
