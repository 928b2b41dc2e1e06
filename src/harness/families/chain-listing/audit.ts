import { parseCaip2 } from '../../../core/caip2.ts';
import { isoTime } from '../../../core/format.ts';
import { eq, type Sample } from '../../../core/samples.ts';
import type { AuditBody, AuditRequest } from '../family.ts';
import { CHAIN_LISTING_METRICS as METRICS } from './metrics.ts';

const UNMAPPED = 'unmapped:';

const byName = <T extends { name: string; chainId?: string; rawId: string }>(a: T, b: T) =>
  a.name.localeCompare(b.name) ||
  (a.chainId ?? '').localeCompare(b.chainId ?? '') ||
  a.rawId.localeCompare(b.rawId);

/**
 * The chain-listing audit: every network counted in the provider's latest successful listing (its
 * CAIP-2 id, name and the provider's raw id), and apart from them the unmapped ones, the invalid
 * entries dropped and the testnets left out, so a reader can check each rule of the count.
 */
export async function chainListingAudit(req: AuditRequest): Promise<AuditBody> {
  const { store, evalTime } = req;
  const metric = req.spec.derivation.metric;
  const provider = eq('provider', req.provider);
  const [latest] = await store.latest({ metric, matchers: [provider], at: evalTime });
  if (!latest) return { asOf: null, networks: [] };
  const atLatest = (m: string) =>
    store.select({ metric: m, matchers: [provider], after: latest.t - 1, until: latest.t });
  const [listed, excluded] = await Promise.all([
    atLatest(METRICS.networkListed),
    atLatest(METRICS.networkExcluded),
  ]);
  const networks = listed
    .map((s) => {
      const chainId = s.labels.chain_id ?? '';
      // Samples written before CAIP-2 ids carry the provider's key as chain_id and no raw_id.
      return {
        chainId,
        caip2: chainId.startsWith(UNMAPPED) || !parseCaip2(chainId) ? null : chainId,
        name: s.labels.name ?? '',
        rawId: s.labels.raw_id ?? chainId,
      };
    })
    .sort(byName);
  const ofKind = (kind: string) => excluded.filter((s: Sample) => s.labels.kind === kind);
  return {
    asOf: isoTime(latest.t),
    networks,
    unmapped: networks
      .filter((n) => n.chainId.startsWith(UNMAPPED))
      .map(({ chainId, name, rawId }) => ({ chainId, name, rawId })),
    dropped: ofKind('dropped')
      .map((s) => ({
        rawId: s.labels.raw_id ?? '',
        name: s.labels.name ?? '',
        reason: s.labels.reason ?? '',
      }))
      .sort(byName),
    testnets: ofKind('testnet')
      .map((s) => ({
        chainId: s.labels.chain_id ?? '',
        name: s.labels.name ?? '',
        rawId: s.labels.raw_id ?? '',
        reason: s.labels.reason ?? '',
      }))
      .sort(byName),
  };
}
