import type { ProviderListing, Stat } from '../core/api-schemas.ts';
import { esc, layout } from './html.ts';
import { fmt } from './view-parts.ts';

interface SiteInput {
  readonly siteName: string;
  readonly baseUrl: string;
  readonly simulated: boolean;
}

/** /benchmarks: every benchmark, a line each, with its leader and value now. */
export function benchmarksIndexPage(stats: readonly Stat[], site: SiteInput): string {
  const rows = stats
    .map(
      (s) =>
        `<tr><td>${esc(s.number)}</td><td class="name"><a href="/benchmarks/${esc(s.slug)}">${esc(s.title)}</a></td><td>${esc(s.category)}</td><td>${esc(s.metric)}</td><td>${s.leader ? esc(s.leader.name) : '–'}</td><td>${esc(fmt(s.value, s.unit))}</td><td><a href="/api/stat/${esc(s.slug)}">JSON</a> <a href="/benchmarks/${esc(s.slug)}/days">Days</a></td></tr>`,
    )
    .join('\n');
  const body = `<p class="eyebrow">Index</p>
<h1>Every benchmark</h1>
<p class="muted">${stats.length} benchmark${stats.length === 1 ? '' : 's'}: the leader and its value now, each with its page, its JSON and its frozen days.</p>
<div class="wrap"><table data-testid="benchmarks-index"><thead><tr><th>No.</th><th class="l">Benchmark</th><th>Category</th><th>Metric</th><th>Leader</th><th>Value</th><th>Data</th></tr></thead><tbody>
${rows}
</tbody></table></div>`;
  return layout(
    {
      title: 'Every benchmark',
      description: `${site.siteName}'s ${stats.length} benchmarks of crypto infrastructure, each with its leader.`,
      url: `${site.baseUrl}/benchmarks`,
      siteName: site.siteName,
      simulated: site.simulated,
    },
    body,
  );
}

/** /providers: every catalogue provider measured by a benchmark, with its profile and website. */
export function providersIndexPage(listing: ProviderListing, site: SiteInput): string {
  const measured = listing.providers.filter((p) => p.benchmarks > 0);
  const rows = measured
    .map(
      (p) =>
        `<tr><td class="name"><a href="/providers/${esc(p.slug)}">${esc(p.name)}</a></td><td>${p.benchmarks}</td><td><a href="${esc(p.website)}" rel="nofollow">${esc(new URL(p.website).host)}</a></td><td><a href="/api/providers/${esc(p.slug)}">JSON</a></td></tr>`,
    )
    .join('\n');
  const body = `<p class="eyebrow">Index</p>
<h1>Every provider</h1>
<p class="muted">${measured.length} provider${measured.length === 1 ? '' : 's'} measured by at least one benchmark, each with its profile across them.</p>
<div class="wrap"><table data-testid="providers-index"><thead><tr><th class="l">Provider</th><th>Benchmarks</th><th>Website</th><th>Data</th></tr></thead><tbody>
${rows}
</tbody></table></div>`;
  return layout(
    {
      title: 'Every provider',
      description: `The ${measured.length} providers ${site.siteName} measures, each with its profile.`,
      url: `${site.baseUrl}/providers`,
      siteName: site.siteName,
      simulated: site.simulated,
    },
    body,
  );
}
