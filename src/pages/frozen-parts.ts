import { esc, layout } from './html.ts';

/**
 * What marks a frozen day's page as frozen, and the day archive: a reader must never take a past
 * day's values for live ones, nor cite a day that can still change.
 */

/** The banner at the top of a dated page. */
export function frozenBanner(day: string, livePath: string, slug: string): string {
  return `<div class="card frozenbox" role="note" data-testid="frozen-banner"><strong>Frozen snapshot of ${esc(day)}.</strong> These values were published when the UTC day closed and never change. <a href="${esc(livePath)}">Live values</a> · <a href="/benchmarks/${esc(slug)}/days">Every frozen day</a></div>`;
}

/** Stands for the LIVE/STALE badge on a dated page. */
export function frozenBadge(day: string): string {
  return `<span class="badge frozen" data-testid="frozen-badge">frozen ${esc(day)}</span>`;
}

/** Stands for the filter chips on a dated page: a day is frozen unfiltered, so none stays on it. */
export function frozenFiltersNote(livePath: string): string {
  return `<p class="muted small" data-testid="frozen-filters">A frozen day is published unfiltered; filter the <a href="${esc(livePath)}">live values</a>.</p>`;
}

/** The last closed day's permalink: what "cite this day" cites (today's page still changes). */
export function citeDayLine(slug: string, lastFrozen: string | undefined): string {
  if (lastFrozen === undefined) {
    return '<p class="muted small" data-testid="cite-day">No day has closed yet: the first frozen day appears here once one has.</p>';
  }
  const href = `/benchmarks/${slug}?date=${lastFrozen}`;
  return `<p class="small" data-testid="cite-day">Cite this day: <a href="${esc(href)}">${esc(lastFrozen)}</a>, the last closed UTC day, frozen for good (today's values still change).</p>`;
}

export interface DayArchiveInput {
  readonly siteName: string;
  readonly baseUrl: string;
  readonly simulated: boolean;
  /** Frozen days, newest first. */
  readonly days: readonly string[];
  /** One benchmark's archive; the site's when absent. */
  readonly benchmark?: { readonly slug: string; readonly title: string };
  /** Every benchmark, for the site's archive: one dated page link each per day. */
  readonly benchmarks: readonly { readonly slug: string; readonly title: string }[];
}

/** /days and /benchmarks/{slug}/days: every frozen day, each with its permalinks. */
export function dayArchivePage(input: DayArchiveInput): string {
  const one = input.benchmark;
  const path = one ? `/benchmarks/${one.slug}/days` : '/days';
  const title = one ? `Frozen days of ${one.title}` : 'Frozen days';
  const rows = input.days
    .map((day) => {
      const links = one
        ? `<a href="/benchmarks/${esc(one.slug)}?date=${esc(day)}">Page</a> <a href="/api/stat/${esc(one.slug)}?date=${esc(day)}">JSON</a> <a href="/api/cite/${esc(one.slug)}/bib?date=${esc(day)}">BibTeX</a>`
        : input.benchmarks
            .map((b) => `<a href="/benchmarks/${esc(b.slug)}?date=${esc(day)}">${esc(b.title)}</a>`)
            .join(' · ');
      return `<tr><td><time datetime="${esc(day)}">${esc(day)}</time></td><td>${links}</td><td><a href="/api/citable/${esc(day)}">Index</a> <a href="/api/dataset/${esc(day)}.json">Dataset</a></td></tr>`;
    })
    .join('\n');
  const table = input.days.length
    ? `<div class="wrap"><table data-testid="day-archive"><thead><tr><th>Day (UTC)</th><th>${one ? 'Permalinks' : 'Benchmark pages'}</th><th>Snapshot</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : '<p class="muted" data-testid="day-archive-empty">No day has been frozen yet: a day is frozen once it closes (00:00 UTC).</p>';
  const body = `<p class="eyebrow">Archive</p>
<h1>${esc(title)}</h1>
<p class="muted">Each closed UTC day is frozen: its values, citations and dataset never change, so a link to a day stays true. ${input.days.length} day${input.days.length === 1 ? '' : 's'}, newest first.${one ? ` <a href="/benchmarks/${esc(one.slug)}">Live values</a> · <a href="/days">Every benchmark's days</a>` : ''}</p>
${table}`;
  return layout(
    {
      title,
      description: `${title}: ${input.days.length} closed UTC days, each frozen for good.`,
      url: `${input.baseUrl}${path}`,
      siteName: input.siteName,
      simulated: input.simulated,
    },
    body,
  );
}
