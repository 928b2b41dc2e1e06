import type { CitableIndex, Compare } from '../core/api-schemas.ts';
import { compareVerdict } from '../core/compare.ts';
import { formatValue } from '../core/format.ts';
import { esc, layout } from './html.ts';

/** The home page: every benchmark with its current leader. */
export function homePage(index: CitableIndex, siteName: string): string {
  const cards = index.benchmarks
    .map(
      (b) => `<div class="card">
<p class="eyebrow">${esc(b.category)} · ${esc(b.metric)}</p>
<h2 style="margin:.2em 0"><a href="${esc(new URL(b.url).pathname)}">${esc(b.title)}</a></h2>
<p class="value" style="font-size:2rem">${b.value === null ? '–' : esc(formatValue(b.value, b.unit))}</p>
<p>${esc(b.headline)}</p>
</div>`,
    )
    .join('\n');
  return layout(
    {
      title: 'Open, citable benchmarks of crypto infrastructure',
      description: `${index.count} benchmarks with rankings, methodology, day snapshots and citations.`,
      url: index.site.url,
      siteName,
    },
    `<h1>Open, citable benchmarks of crypto infrastructure</h1>
<p class="muted">Every number links to its methodology and raw data. Data is CC-BY-4.0; pin a citation with a day snapshot: <a href="/api/citable">/api/citable/YYYY-MM-DD</a>.</p>
${cards}`,
  );
}

/** "Mobula", "Tie", or "Not comparable: no data for codex in the same window". */
function verdictCell(r: Compare['shared'][number], c: Compare): string {
  if (!r.comparable) {
    const v = compareVerdict(r, c.a.name, c.b.name);
    return v.charAt(0).toUpperCase() + v.slice(1);
  }
  return r.winner === 'tie' ? 'Tie' : r.winner === 'a' ? c.a.name : c.b.name;
}

/** The head-to-head page (`comparePageUrl`). */
export function comparePage(c: Compare, siteName: string): string {
  const rows = c.shared
    .map(
      (r) => `<tr>
<td>${esc(r.metric)}</td>
<td><a href="${esc(new URL(r.pageUrl).pathname)}">${esc(r.title)}</a></td>
<td>${r.aValue === null ? '–' : esc(formatValue(r.aValue, r.unit))}</td>
<td>${r.bValue === null ? '–' : esc(formatValue(r.bValue, r.unit))}</td>
<td${r.comparable ? '' : ' class="muted" data-testid="not-comparable"'}>${esc(verdictCell(r, c))}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    {
      title: `${c.a.name} vs ${c.b.name}`,
      description: `${c.a.name} ${c.totalWins.a} wins, ${c.b.name} ${c.totalWins.b} wins, ${c.totalWins.tie} ties across ${c.shared.length} shared benchmarks.`,
      url: c.comparePageUrl,
      siteName,
    },
    `<p class="eyebrow">Head to head</p>
<h1>${esc(c.a.name)} vs ${esc(c.b.name)}</h1>
<p data-testid="score">${esc(c.a.name)} ${c.totalWins.a} · ${esc(c.b.name)} ${c.totalWins.b} · ties ${c.totalWins.tie}${c.notComparable ? ` (${c.notComparable} not comparable)` : ''}</p>
<table>
<thead><tr><th>Metric</th><th>Benchmark</th><th>${esc(c.a.name)}</th><th>${esc(c.b.name)}</th><th>Better</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`,
  );
}
