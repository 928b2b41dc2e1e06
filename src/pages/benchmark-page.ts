import type { RankingRow, Stat } from '../core/api-schemas.ts';
import { formatInterval } from '../core/format.ts';
import { leaderTieReason } from '../core/markdown.ts';
import { SIGNIFICANCE } from '../core/uncertainty.ts';
import { UNRESPONSIVE_AFTER } from '../core/unresponsive.ts';
import { citeDayLine, frozenBadge, frozenBanner, frozenFiltersNote } from './frozen-parts.ts';
import { type HistoryInput, historySection } from './history-section.ts';
import { esc, layout } from './html.ts';
import {
  bar,
  ciTitle,
  type DerivationMode,
  fmt,
  inlineSparkline,
  labelOf,
  pathOf,
  providerLink,
  statusBadge,
  unitLabel,
  updatedPhrase,
  valueWithCi,
} from './view-parts.ts';

/** One chain (or other label dimension value) of the matrix: its label and the Stat filtered to it. */
export interface MatrixColumn {
  readonly dimension: string;
  readonly value: string;
  readonly label: string;
  readonly stat: Stat;
}

export interface BenchmarkPageInput {
  readonly stat: Stat;
  readonly siteName: string;
  /**
   * The spec's derivation mode: a listing count read from each provider's latest sample, or a
   * window statistic. Never guessed from the numbers (one provider at 100% has p50 = p90 = mean).
   */
  readonly mode: DerivationMode;
  /** Per-value views of a label dimension (chain × provider), when the benchmark has one. */
  readonly matrix?: readonly MatrixColumn[];
  /** The History section's chart (live pages only: a frozen day's page has no series to draw). */
  readonly history?: HistoryInput;
  /** The last frozen day, which a live page offers to cite (undefined: none yet). */
  readonly lastFrozen?: string;
}

function providerCell(stat: Stat, r: RankingRow): string {
  const marks: string[] = [];
  if (r.unresponsive) marks.push('<span class="badge stale" title="see the note below">unresponsive</span>');
  if (r.noComparison)
    marks.push(
      '<span class="badge" data-testid="no-comparison" title="see the note below">no comparison</span>',
    );
  if (tooFew(r))
    marks.push('<span class="badge" data-testid="too-few" title="see the note below">too few samples</span>');
  const kind = r.kind ? ` <span class="muted small">${esc(labelOf(stat, 'kind', r.kind))}</span>` : '';
  return `<td class="name">${providerLink(r.slug, r.name)}${kind} ${marks.join(' ')}</td>`;
}

/**
 * "Too few samples" as a row's reason: not on a row without a comparison, which has no comparable
 * sample at all (sampleSize 0) and is named by that reason alone, as unrankedReason orders them.
 */
function tooFew(r: RankingRow): boolean {
  return r.insufficientData === true && !r.noComparison;
}

/**
 * What a row without a comparison shows instead of its score: its 100% is true by construction,
 * so no percentage is printed beside "no comparison".
 */
const NO_SCORE = '<td class="muted">– <span class="small">no comparison</span></td>';

type Ci = readonly [number, number];

/** A p90, p99 or mean cell: the interval in its title, where a second line would crowd a phone. */
function tailCell(v: number | null, ci: Ci | null | undefined, unit: string): string {
  if (v === null) return '<td>–</td>';
  const title = ciTitle(ci, unit);
  return `<td${title ? ` title="${esc(title)}"` : ''}>${esc(fmt(v, unit))}</td>`;
}

/**
 * Under a ranked row's bar: "tied with leader" when the data cannot separate it from the leader,
 * so a rank alone never reads as a lead. Why (sign test or margin) is in the title and in the note
 * under the table, which a phone shows too.
 */
function leaderMark(stat: Stat, r: RankingRow, leader: RankingRow | null): string {
  if (!leader) return '';
  const why = leaderTieReason(r, leader.ms.p50, stat.unit);
  return why ? `<span class="sub" data-testid="tied" title="${esc(why)}">tied with leader</span>` : '';
}

/**
 * Rankings. A count read from a listing has one number per provider; a window statistic shows its
 * p50 and mean and the share of successful probes. Headers say the unit, never "latency". The value
 * comes right after the name, so a phone shows it without scrolling the table sideways.
 */
function rankings(stat: Stat, mode: DerivationMode): string {
  const u = unitLabel(stat.unit);
  const latest = mode === 'latest';
  const ranked = stat.rankings.filter((r) => r.rank !== null);
  const values = ranked.map((r) => r.ms.p50);
  const best = values.length ? (stat.higherIsBetter ? Math.max(...values) : Math.min(...values)) : 0;
  const union = stat.rankings.some((r) => r.unionCapture);
  // Recall against the chain's own swaps, beside capture: present when the family publishes it.
  const recall = stat.rankings.some((r) => r.recall !== undefined);
  const precision = stat.rankings.some((r) => r.precision !== undefined);
  const head = latest
    ? `<th>#</th><th class="l">Provider</th><th>${esc(stat.metric)} (${esc(u)})</th><th class="l">Compared with the leader</th><th>Last listing (UTC)</th><th>Raw data</th>`
    : `<th>#</th><th class="l">Provider</th><th>p50 (${esc(u)})</th><th class="l">Compared with the leader</th><th>p90 (${esc(u)})</th><th>p99 (${esc(u)})</th><th>Mean (${esc(u)})</th>${union ? '<th>p50 vs union (%)</th>' : ''}${recall ? '<th>p50 recall vs chain (%)</th>' : ''}${precision ? '<th>p50 precision vs chain (%)</th>' : ''}<th>Probes OK (%)</th><th>Samples (count)</th><th>Raw data</th>`;
  if (stat.rankings.length === 0) {
    const msg = stat.status === 'draft' ? 'Not measured yet.' : 'No measurements in the last 24 h.';
    return `<div class="wrap"><table><thead><tr>${head}</tr></thead><tbody><tr><td class="l muted" colspan="11">${msg}</td></tr></tbody></table></div>`;
  }
  const leader = stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
  const rows = stat.rankings
    .map((r) => {
      const off = r.rank === null;
      const barCell = off
        ? `<td class="barcell muted small">${tooFew(r) ? 'too few samples' : 'not ranked'}</td>`
        : `<td class="barcell">${bar(r.ms.p50, best, stat.higherIsBetter, `${r.name}: ${fmt(r.ms.p50, stat.unit)}`)}${leaderMark(stat, r, leader)}</td>`;
      const audit = `<td><a href="${esc(pathOf(r.audit))}">audit</a></td>`;
      const alone = r.noComparison;
      // A window p50 is never shown without its interval (a listing count has none).
      const value = alone
        ? NO_SCORE
        : `<td>${valueWithCi(r.ms.p50, latest ? null : r.ci95?.p50, stat.unit)}</td>`;
      // The union capture of a provider alone on its cells is its own count: 100% by construction.
      const unionCell = r.unionCapture && !alone ? esc(fmt(r.unionCapture.p50, 'pct')) : '–';
      const recallCell = r.recall && !alone ? esc(fmt(r.recall.p50, 'pct')) : '–';
      const precisionCell = r.precision && !alone ? esc(fmt(r.precision.p50, 'pct')) : '–';
      const rest = latest
        ? `<td>${esc(r.lastSampleAt.slice(0, 16).replace('T', ' '))}</td>`
        : `${tailCell(alone ? null : r.ms.p90, r.ci95?.p90, stat.unit)}${tailCell(alone ? null : r.ms.p99, r.ci95?.p99, stat.unit)}${tailCell(alone ? null : r.ms.mean, null, stat.unit)}${union ? `<td>${unionCell}</td>` : ''}${recall ? `<td>${recallCell}</td>` : ''}${precision ? `<td>${precisionCell}</td>` : ''}<td>${r.successRate.toFixed(1)}</td><td>${r.sampleSize.toLocaleString('en-US')}</td>`;
      return `<tr${off ? ' class="off"' : ''}><td>${r.rank ?? '–'}</td>${providerCell(stat, r)}${value}${barCell}${rest}${audit}</tr>`;
    })
    .join('\n');
  return `<div class="wrap"><table><thead><tr>${head}</tr></thead><tbody>
${rows}
</tbody></table></div>${groundTruthNote(stat)}`;
}

const TRUTH_REASONS: Readonly<Record<string, string>> = {
  'no-reference-node': 'no reference node for the chain (Solana, Stellar)',
  'before-history': 'the window starts before the node’s retained history',
  'node-error': 'the reference node failed',
  limit: 'a single block over a provider limit',
  'not-recorded': 'measured before ground truth was read',
};

/** Says how much of the view an independent ground truth covers, so recall is never over-read. */
function groundTruthNote(stat: Stat): string {
  const g = stat.groundTruth;
  if (!g) return '';
  const why = g.reason ? (TRUTH_REASONS[g.reason] ?? g.reason) : '';
  const text =
    g.status === 'ok'
      ? 'Ground truth: every cell of this view had the chain’s own swap logs to score recall against.'
      : g.status === 'partial'
        ? `Ground truth: only some cells of this view had it (others: ${why}); recall covers those cells only.`
        : `Ground truth: none in this view (${why}); no recall is published.`;
  return `<p class="small muted">${esc(text)}</p>`;
}

/** One matrix per dimension of the columns (chain, region, method), in the order they come. */
function matrices(stat: Stat, columns: readonly MatrixColumn[]): string {
  const byDim = new Map<string, MatrixColumn[]>();
  for (const c of columns) byDim.set(c.dimension, [...(byDim.get(c.dimension) ?? []), c]);
  return [...byDim.values()].map((cols) => matrix(stat, cols)).join('\n');
}

/** Chain × provider: each provider's p50 on each value, the best per value marked. */
function matrix(stat: Stat, columns: readonly MatrixColumn[]): string {
  if (columns.length === 0) return '';
  const providers = [...new Map(stat.rankings.map((r) => [r.slug, r.name])).entries()];
  for (const col of columns)
    for (const r of col.stat.rankings)
      if (!providers.some(([s]) => s === r.slug)) providers.push([r.slug, r.name]);
  const u = unitLabel(stat.unit);
  const dim = columns[0]?.dimension ?? '';
  const head = `<th class="l">Provider</th>${columns
    .map((c) => `<th><a href="?${esc(c.dimension)}=${encodeURIComponent(c.value)}">${esc(c.label)}</a></th>`)
    .join('')}`;
  const body = providers
    .map(([slug, name]) => {
      const cells = columns.map((c) => {
        const row = c.stat.rankings.find((r) => r.slug === slug);
        if (!row) return '<td class="muted" title="not measured on this value">–</td>';
        // The data cannot separate a row tied with the leader from it: both are starred.
        const best =
          c.stat.leader?.slug === slug
            ? 'best on this value'
            : row.tiedWithLeader
              ? 'statistically tied with the best on this value'
              : null;
        // Alone on this value: its 100% is true by construction, so no score is printed.
        if (row.noComparison) return '<td class="muted">– <span class="small">(no comparison)</span></td>';
        const note = row.unresponsive
          ? ' <span class="muted small">(unresponsive)</span>'
          : row.insufficientData
            ? ' <span class="muted small">(too few samples)</span>'
            : '';
        const title = [best, ciTitle(row.ci95?.p50, stat.unit)].filter(Boolean).join('; ');
        return `<td${best ? ' class="best"' : ''}${title ? ` title="${esc(title)}"` : ''}>${esc(fmt(row.ms.p50, stat.unit))}${note}</td>`;
      });
      return `<tr><td class="name">${esc(name)}</td>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<h2 id="matrix">By ${esc(dim)}: ${esc(stat.metric.toLowerCase())}, p50 (${esc(u)})${filterNote(stat)}</h2>
<p class="muted small">★ best on each ${esc(dim)} (or statistically tied with the best); – not measured there (left out, never counted as zero), or measured alone (no comparison).</p>
<div class="wrap" data-testid="matrix" data-dimension="${esc(dim)}"><table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}

function filterChips(stat: Stat, pagePath: string): string {
  // A dimension without declared values (region, read from the data) has nothing to pick.
  return Object.entries(stat.dimensions)
    .filter(([, values]) => values.length > 0)
    .map(([dim, values]) => {
      const current = stat.filters?.[dim as keyof NonNullable<Stat['filters']>];
      const all = `<a href="${esc(pagePath)}"${current === undefined ? ' aria-current="true"' : ''}>All</a>`;
      const chips = values
        .map(
          (v) =>
            `<a href="${esc(`${pagePath}?${dim}=${encodeURIComponent(v.value)}`)}"${current === v.value ? ' aria-current="true"' : ''}>${esc(v.label)}</a>`,
        )
        .join('');
      return `<nav class="chips" aria-label="Filter by ${esc(dim)}"><span class="eyebrow">${esc(dim)}</span> ${all}${chips}</nav>`;
    })
    .join('\n');
}

/** The benchmark's own unresponsive rule, as its methodology states it (one rule, written once). */
function unresponsiveRule(stat: Stat): string {
  const line = stat.methodology.find((m) => m.startsWith('Unresponsive:'));
  return line
    ? line.replace(/^Unresponsive:\s*/, '')
    : `${UNRESPONSIVE_AFTER} consecutive cycles in which at least half of the provider's probes got a 5xx, until a cycle that is not.`;
}

/** Notes that explain, in place, the markers a row can carry and the view's status. */
function notes(stat: Stat): string {
  const out: string[] = [];
  if (stat.status === 'stale') {
    out.push(
      `<p class="muted" data-testid="stale">Stale: no new measurement for more than twice the benchmark's cadence; the values shown are the last ones measured.</p>`,
    );
  }
  const alone = stat.rankings.filter((r) => r.noComparison).map((r) => r.name);
  if (alone.length > 0) {
    out.push(
      `<p class="muted" data-testid="no-comparison-note"><strong>No comparison:</strong> ${esc(alone.join(' and '))} ${alone.length > 1 ? 'were' : 'was'} the only provider measured on these cells, so its capture is 100% by construction; it is shown, not ranked.</p>`,
    );
  }
  if (stat.rankings.some((r) => r.unresponsive)) {
    out.push(
      `<p class="muted"><strong>Unresponsive:</strong> ${esc(unresponsiveRule(stat))} Kept as a row, never ranked.</p>`,
    );
  }
  const few = stat.rankings.filter(tooFew);
  if (few.length > 0) {
    const who = few.map((r) => `${r.name} (${r.sampleSize.toLocaleString('en-US')})`).join(' and ');
    out.push(
      `<p class="muted" data-testid="too-few-note"><strong>Too few samples:</strong> ${esc(who)} had fewer samples in the window than this benchmark's minimum (minSamples in its methodology): a p50 from so few samples cannot be placed against the others, so the row is shown, never ranked and never the leader.</p>`,
    );
  }
  const leader = stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
  const tied = leader
    ? stat.rankings.flatMap((r) => {
        const why = leaderTieReason(r, leader.ms.p50, stat.unit);
        return why ? [`${r.name} (${why})`] : [];
      })
    : [];
  if (leader && tied.length > 0) {
    out.push(
      `<p class="muted" data-testid="tied-note"><strong>Tied with the leader:</strong> the data cannot separate ${esc(tied.join(', '))} from ${esc(leader.name)}. A side is ahead only when the paired sign test gives p &lt; ${SIGNIFICANCE}, the p50s differ by more than the benchmark's margin, and most cycles favour it; the rank order is kept, no lead is claimed (<a href="/methodology#uncertainty">how</a>).</p>`,
    );
  }
  // Only about intervals the table shows: a row without a comparison shows none.
  if (stat.rankings.some((r) => r.ci95?.p50 && !r.noComparison)) {
    out.push(
      `<p class="muted small" data-testid="ci-note"><strong>95% CI:</strong> a distribution-free interval for the p50 from order statistics of the row's samples, with at least 95% coverage if samples were independent (p90 and p99 have theirs in the cell's title). It treats samples as independent, so it is narrower than the day-to-day spread (<a href="/methodology#uncertainty">how</a>).</p>`,
    );
  }
  return out.length ? `<div class="notes">${out.join('\n')}</div>` : '';
}

/** " (Asset registry)": the applied filters by their labels, as the chips name them. */
function filterNote(stat: Stat): string {
  const applied = Object.entries(stat.filters ?? {}).flatMap(([dim, v]) =>
    v === undefined ? [] : [labelOf(stat, dim, v)],
  );
  return applied.length ? ` <span class="muted small">(${esc(applied.join(', '))})</span>` : '';
}

function compareLinks(stat: Stat): string {
  const leader = stat.leader;
  if (!leader) return '';
  const others = stat.rankings.filter((r) => r.slug !== leader.slug);
  if (others.length === 0) return '';
  return `<h2>Head to head</h2>
<p class="actions">${others
    .map(
      (r) =>
        `<a href="/compare/${esc(leader.slug)}-vs-${esc(r.slug)}">${esc(leader.name)} vs ${esc(r.name)}</a>`,
    )
    .join('')}</p>`;
}

function citeBox(stat: Stat, dated: string): string {
  if (stat.status === 'draft') {
    return `<h2>Cite this</h2>
<p class="draftbox" data-testid="draft-note">Nothing to cite yet: this benchmark is waiting for its first measurement. Its quote and citation files appear here once it has one.</p>`;
  }
  const cite = (f: string, label: string) =>
    `<a href="/api/cite/${esc(stat.slug)}/${f}${dated}">${label}</a>`;
  return `<h2>Cite this</h2>
<p class="quote" id="quote">${esc(stat.quote)}</p>
<p class="actions"><button type="button" data-copy="quote">Copy quote</button><button type="button" data-copy="cite-plain">Copy citation</button>
${cite('bib', 'BibTeX')} ${cite('ris', 'RIS')} ${cite('apa', 'APA')} ${cite('txt', 'Text')} ${cite('csl', 'CSL JSON')}</p>
<p class="muted small" id="cite-plain">${esc(stat.cite.plain)}</p>`;
}

/** The public page of one benchmark (the `pageUrl` every citation points at). */
export function benchmarkPage(input: BenchmarkPageInput): string {
  const { stat, siteName } = input;
  const pagePath = new URL(stat.pageUrl).pathname;
  const day = new URL(stat.pageUrl).searchParams.get('date');
  const dated = day ? `?date=${encodeURIComponent(day)}` : '';
  const draft = stat.status === 'draft';
  const top = stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
  const tiedNames = top ? stat.rankings.filter((r) => r.tiedWithLeader === true).map((r) => r.name) : [];
  const tiedWith = tiedNames.length
    ? ` <span class="badge tie" data-testid="tied-top">statistically tied with ${esc(tiedNames.join(' and '))}</span>`
    : '';
  const state = day ? frozenBadge(day) : statusBadge(stat.status);
  const leaderLine = stat.leader
    ? `<p class="muted">Leader: <strong>${esc(stat.leader.name)}</strong>${tiedWith} · ${state} · ${updatedPhrase(stat)}</p>`
    : `<p class="muted">${state} · ${updatedPhrase(stat)}</p>`;
  const valueCi = top?.ci95?.p50
    ? `<p class="muted small" data-testid="value-ci">95% CI ${esc(formatInterval(top.ci95.p50, stat.unit))} (the leader's p50, at least 95% coverage if samples were independent)</p>`
    : '';
  const hero = draft
    ? `<div class="card draftbox" data-testid="draft">This benchmark has not been measured yet: it is waiting for its first sample. Rankings, the quote and the citation appear once it has one.</div>`
    : `<div class="card hero">
<div><p class="value" data-testid="value">${esc(fmt(stat.value, stat.unit))}<small>${esc(stat.metric.toLowerCase())}</small></p>
${valueCi}<p data-testid="headline">${esc(stat.headline)}</p>${leaderLine}</div>
<figure style="margin:0">${inlineSparkline(stat, 560, 120)}<figcaption class="muted small">Leader over the last 24 h, up means better${stat.higherIsBetter ? '' : ' (lower is better: the axis is inverted)'}; labels are its lowest and highest values.</figcaption></figure>
</div>`;
  const snapDay = day ?? input.lastFrozen;
  const snapshot = snapDay ? `<a href="/api/citable/${esc(snapDay)}">Day snapshot ${esc(snapDay)}</a>` : '';
  const body = `
<p class="eyebrow">${esc(stat.category)} · No. ${esc(stat.number)} · ${esc(stat.metric)}</p>
<h1>${esc(stat.title)}</h1>
<p class="muted">${esc(stat.subtitle)}</p>
${day ? `${frozenBanner(day, pagePath, stat.slug)}\n${frozenFiltersNote(pagePath)}` : filterChips(stat, pagePath)}
${hero}
<h2>Rankings${filterNote(stat)}</h2>
${rankings(stat, input.mode)}
${notes(stat)}
${input.history ? historySection(stat.slug, pagePath, input.history) : ''}
${matrices(stat, input.matrix ?? [])}
${compareLinks(stat)}
${citeBox(stat, dated)}${day || draft ? '' : `\n${citeDayLine(stat.slug, input.lastFrozen)}`}
<h2>Data and image</h2>
<p class="actions"><a href="${esc(pathOf(stat.api))}">JSON (this view)</a>${snapshot}<a href="${esc(pathOf(stat.sparklineSvg))}">Sparkline SVG</a><a href="${esc(pathOf(stat.ogImage))}">Share image</a></p>
${draft ? '' : `<img class="og" src="${esc(pathOf(stat.ogImage))}" width="1200" height="630" loading="lazy" alt="Share image: ${esc(stat.headline)}">`}
<h2>Methodology</h2>
<p class="muted">Site-wide rules (statistics, leaders, aggregation, compare, snapshots, citations): <a href="/methodology">methodology</a>.</p>
<ol>
${stat.methodology.map((m) => `<li>${esc(m)}</li>`).join('\n')}
</ol>
<p class="small">Harness source: <a href="${esc(stat.source)}">${esc(stat.source)}</a> · License ${esc(stat.license)}</p>`;
  return layout(
    {
      title: stat.title,
      description: stat.headline,
      url: stat.pageUrl,
      siteName,
      image: stat.ogImage,
      simulated: stat.simulated === true,
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'Dataset',
        name: stat.title,
        description: stat.simulated ? `${stat.subtitle} Simulated demo data.` : stat.subtitle,
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
