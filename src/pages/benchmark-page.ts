import type { Stat } from '../core/api-schemas.ts';
import { formatValue } from '../core/format.ts';
import { renderSparklineSvg } from '../core/sparkline-svg.ts';
import { esc, layout } from './html.ts';

function rows(stat: Stat): string {
  if (stat.rankings.length === 0)
    return '<tr><td colspan="8" class="muted">No measurements in the last 24 h.</td></tr>';
  return stat.rankings
    .map(
      (r) => `<tr${r.unresponsive ? ' class="unresponsive"' : ''}>
<td>${r.rank === null ? '–' : r.rank}</td>
<td>${esc(r.name)}${r.unresponsive ? ' <span class="muted">(unresponsive)</span>' : ''}${r.noComparison ? ' <span class="muted" data-testid="no-comparison">(no comparison)</span>' : ''}${r.kind ? ` <span class="muted">· ${esc(r.kind)}</span>` : ''}</td>
<td>${esc(formatValue(r.ms.p50, stat.unit))}</td>
<td>${esc(formatValue(r.ms.p90, stat.unit))}</td>
<td>${esc(formatValue(r.ms.p99, stat.unit))}</td>
<td>${r.successRate.toFixed(1)}%</td>
<td>${r.sampleSize.toLocaleString('en-US')}</td>
<td><a href="${esc(r.audit)}">data</a></td>
</tr>`,
    )
    .join('\n');
}

function filterChips(stat: Stat, pagePath: string): string {
  return Object.entries(stat.dimensions)
    .map(([dim, values]) => {
      const current = stat.filters?.[dim as keyof NonNullable<Stat['filters']>];
      const all = `<a href="${esc(pagePath)}"${current === undefined ? ' aria-current="true"' : ''}>All</a>`;
      const chips = values
        .map(
          (v) =>
            `<a href="${esc(`${pagePath}?${dim}=${encodeURIComponent(v.value)}`)}"${current === v.value ? ' aria-current="true"' : ''}>${esc(v.label)}</a>`,
        )
        .join('');
      return `<p class="chips"><span class="eyebrow">${esc(dim)}</span> ${all}${chips}</p>`;
    })
    .join('\n');
}

/** Notes that explain, in place, the markers a row can carry and the view's status. */
function notes(stat: Stat): string {
  const out: string[] = [];
  if (stat.status === 'stale') {
    out.push(
      `<p class="muted" data-testid="stale">Stale: no new measurement for more than twice the ${esc(stat.window)} benchmark's cadence; the values shown are the last ones measured.</p>`,
    );
  }
  if (stat.status === 'draft')
    out.push('<p class="muted">Draft: this benchmark has not been measured yet.</p>');
  const alone = stat.rankings.filter((r) => r.noComparison).map((r) => r.name);
  if (alone.length > 0) {
    out.push(
      `<p class="muted" data-testid="no-comparison-note">No comparison: ${esc(alone.join(' and '))} ${alone.length > 1 ? 'were' : 'was'} the only provider measured on these cells, so its capture is 100% by construction; it is shown, not ranked.</p>`,
    );
  }
  if (stat.rankings.some((r) => r.unresponsive)) {
    out.push(
      '<p class="muted">Unresponsive: three consecutive cycles in which at least half of the probes got a 5xx; kept as a row, never ranked.</p>',
    );
  }
  return out.join('\n');
}

/** The public page of one benchmark (the `pageUrl` every citation points at). */
export function benchmarkPage(stat: Stat, siteName: string): string {
  const pagePath = new URL(stat.pageUrl).pathname;
  const day = new URL(stat.pageUrl).searchParams.get('date');
  const dated = day ? `?date=${encodeURIComponent(day)}` : '';
  const spark = renderSparklineSvg({
    points: stat.sparkline,
    width: 600,
    height: 80,
    theme: 'light',
    higherIsBetter: stat.higherIsBetter,
    title: stat.title,
    leaderName: stat.leader?.name ?? null,
  }).replace(/^<\?xml[^>]*>\s*/, '');
  const body = `
<p class="eyebrow">${esc(stat.category)} · No. ${esc(stat.number)} · ${esc(stat.metric)}</p>
<h1>${esc(stat.title)}</h1>
<p class="muted">${esc(stat.subtitle)}</p>
${filterChips(stat, pagePath)}
<div class="card">
<p class="value" data-testid="value">${stat.value === null ? '–' : esc(formatValue(stat.value, stat.unit))}</p>
<p data-testid="headline">${esc(stat.headline)}</p>
<figure style="margin:0">${spark}<figcaption class="muted">Leader, last 24 h (up means better). As of ${esc(stat.asOf ?? 'no data yet')}.</figcaption></figure>
</div>
<h2>Rankings</h2>
<table>
<thead><tr><th>#</th><th>Provider</th><th>p50</th><th>p90</th><th>p99</th><th>Success</th><th>Samples</th><th>Audit</th></tr></thead>
<tbody>
${rows(stat)}
</tbody>
</table>
${notes(stat)}
<h2>Cite this</h2>
<p class="quote" id="quote">${esc(stat.quote)}</p>
<p><button type="button" id="copy-quote">Copy quote</button>
<a href="/api/cite/${esc(stat.slug)}/bib${dated}">BibTeX</a> · <a href="/api/cite/${esc(stat.slug)}/ris${dated}">RIS</a> ·
<a href="/api/cite/${esc(stat.slug)}/apa${dated}">APA</a> · <a href="/api/cite/${esc(stat.slug)}/txt${dated}">Text</a> ·
<a href="${esc(stat.api)}">JSON</a> · <a href="${esc(stat.ogImage)}">Image</a></p>
<h2>Methodology</h2>
<p class="muted">Site-wide rules (aggregation, compare, snapshots, citations): <a href="/methodology">methodology</a>.</p>
<ol>
${stat.methodology.map((m) => `<li>${esc(m)}</li>`).join('\n')}
</ol>
<p>Harness source: <a href="${esc(stat.source)}">${esc(stat.source)}</a> · License ${esc(stat.license)}</p>
<script>
document.getElementById('copy-quote').addEventListener('click', function () {
  var b = this;
  navigator.clipboard.writeText(document.getElementById('quote').textContent).then(function () { b.textContent = 'Copied'; }, function () { b.textContent = 'Select and copy'; });
});
</script>`;
  return layout(
    {
      title: stat.title,
      description: stat.headline,
      url: stat.pageUrl,
      siteName,
      image: stat.ogImage,
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'Dataset',
        name: stat.title,
        description: stat.subtitle,
        url: stat.pageUrl,
        license: 'https://creativecommons.org/licenses/by/4.0/',
        creator: { '@type': 'Organization', name: siteName },
        ...(stat.asOf ? { dateModified: stat.asOf } : {}),
        distribution: [{ '@type': 'DataDownload', encodingFormat: 'application/json', contentUrl: stat.api }],
      },
    },
    body,
  );
}
