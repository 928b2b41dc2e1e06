import type { Stat } from '../core/api-schemas.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { dayEnd } from '../core/dates.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { type Site, urls } from '../core/urls.ts';
import type { SampleStore, SnapshotEntry } from '../store/sample-store.ts';
import { buildAudit } from './audit.ts';
import { serveText } from './served.ts';

/**
 * What a day is frozen with besides its Stats and index: the site it was published under (the
 * dated CSL's author and file name) and every audit its Stats link to. Nothing served for a
 * frozen day is built from the running configuration.
 */

export const siteKey = (day: string) => `site:${day}`;

/** `window`: the audit a window-mode row links to (`?window=24h`); else the latest cycle's. */
export const auditKey = (slug: string, provider: string, day: string, window: boolean) =>
  `audit:${slug}:${provider}${window ? ':window' : ''}:${day}`;

/** The site record frozen with a day: only name, base URL and whether the data was simulated. */
export function siteEntry(day: string, site: Site): SnapshotEntry {
  const record = { name: site.name, baseUrl: site.baseUrl, ...(site.simulated ? { simulated: true } : {}) };
  return { key: siteKey(day), ...serveText(canonicalJson(record)) };
}

export function parseSite(body: Uint8Array): Site {
  return JSON.parse(new TextDecoder().decode(body)) as Site;
}

/**
 * The site of a day frozen before site records existed, read back from its own frozen Stat: the
 * base URL from its pinned page URL, the name from its RIS publisher line (the bundle was built
 * with that name), `simulated` from the Stat.
 */
export function siteOfFrozenStat(stat: Stat): Site {
  const at = stat.pageUrl.indexOf('/benchmarks/');
  const name = /^PB {2}- (.*)$/m.exec(stat.cite.ris)?.[1]?.replace(/\r$/, '');
  if (at < 0 || name === undefined) throw new Error(`frozen Stat ${stat.slug} names no site`);
  return { name, baseUrl: stat.pageUrl.slice(0, at), ...(stat.simulated ? { simulated: true } : {}) };
}

/**
 * Every audit a day's frozen Stats can link to, evaluated at the day's last millisecond, with the
 * page link pinned to the day: per declared provider the latest cycle's, and for a window-mode
 * benchmark also the unfiltered window the ranking row links to. Benchmarks one at a time (their
 * providers together), so a freeze of 1,000 benchmarks does not start 12,000 reads at once.
 */
export async function auditEntries(
  store: SampleStore,
  specs: readonly BenchmarkSpec[],
  day: string,
  start: number,
  site: Site,
): Promise<SnapshotEntry[]> {
  const out: SnapshotEntry[] = [];
  const pageUrl = (slug: string) => urls.page(site, slug, null, day);
  for (const spec of specs) {
    const variants = spec.derivation.mode === 'window' ? [false, true] : [false];
    const built = await Promise.all(
      spec.providers.flatMap((p) =>
        variants.map(async (window) => {
          const opts = window ? { window: { filters: null } } : {};
          const a = await buildAudit(store, spec, p.slug, dayEnd(start), site, opts);
          const pinned = { ...a, pageUrl: pageUrl(spec.slug) };
          return { key: auditKey(spec.slug, p.slug, day, window), ...serveText(canonicalJson(pinned)) };
        }),
      ),
    );
    out.push(...built);
  }
  return out;
}
