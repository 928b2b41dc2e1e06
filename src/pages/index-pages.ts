import type { Compare, CompareRow, Stat } from '../core/api-schemas.ts';
import { compareVerdict } from '../core/compare.ts';
import { formatInterval, formatP, listed } from '../core/format.ts';
import { SIGNIFICANCE } from '../core/uncertainty.ts';
import { esc, layout } from './html.ts';
import {
  bar,
  ciTitle,
  type DerivationMode,
  fmt,
  inlineSparkline,
  pathOf,
  providerLink,
  statusBadge,
  unitLabel,
  updatedPhrase,
  valueWithCi,
} from './view-parts.ts';

export interface HomePageInput {
  readonly stats: readonly Stat[];
  readonly siteName: string;
  readonly baseUrl: string;
  readonly simulated: boolean;
}

const TOP = 4;

/**
 * The top ranked providers of a benchmark as inline bars (longer is better). The list is one grid
 * whose rows share its columns (subgrid): every bar has the same track, so its length is its share
 * whatever the width of the value printed beside it.
 */
function topBars(stat: Stat): string {
  const ranked = stat.rankings.filter((r) => r.rank !== null).slice(0, TOP);
  if (ranked.length === 0) return '<p class="muted small">No ranking yet.</p>';
  const best = ranked[0]?.ms.p50 ?? 0;
  return `<ol class="tops">${ranked
    .map(
      (r) =>
        `<li><span>${providerLink(r.slug, r.name)}</span>${bar(r.ms.p50, best, stat.higherIsBetter, `${r.name}: ${fmt(r.ms.p50, stat.unit)}`)}<span class="muted"${titleOf(ciTitle(r.ci95?.p50, stat.unit))}>${esc(fmt(r.ms.p50, stat.unit))}</span></li>`,
    )
    .join('')}</ol>`;
}

function titleOf(t: string | null): string {
  return t ? ` title="${esc(t)}"` : '';
}

/**
 * "Codex leads at 94.9% (95% CI 94.1–95.6)", or, when the data cannot separate the next rows from
 * it, "Codex and Mobula are statistically tied at the top": a rank alone is never called a lead.
 */
function leadLine(stat: Stat): string {
  const top = stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
  if (!stat.leader || !top) {
    return `<p class="muted">${stat.status === 'draft' ? 'Waiting for its first measurement.' : 'No leader in the last 24 h.'}</p>`;
  }
  const unit = `<span class="muted small">${esc(stat.metric.toLowerCase())} (${esc(unitLabel(stat.unit))})</span>`;
  const ci = top.ci95?.p50
    ? ` <span class="muted small">(95% CI ${esc(formatInterval(top.ci95.p50, stat.unit))})</span>`
    : '';
  const tied = stat.rankings.filter((r) => r.tiedWithLeader === true).map((r) => r.name);
  if (tied.length > 0) {
    const names = [stat.leader.name, ...tied];
    return `<p data-testid="tied-top"><strong>${esc(listed(names))}</strong> are statistically tied at the top: ${esc(stat.leader.name)} <strong>${esc(fmt(stat.leader.value, stat.unit))}</strong>${ci} ${unit}</p>`;
  }
  return `<p><strong>${esc(stat.leader.name)}</strong> leads at <strong>${esc(fmt(stat.leader.value, stat.unit))}</strong>${ci} ${unit}</p>`;
}

function boardRow(stat: Stat): string {
  const path = pathOf(stat.pageUrl);
  const lead = leadLine(stat);
  return `<article class="card row" data-testid="board-row">
<div>
<p class="eyebrow">${esc(stat.category)} · No. ${esc(stat.number)}</p>
<h2><a href="${esc(path)}">${esc(stat.title)}</a></h2>
${lead}
<p class="muted small">${statusBadge(stat.status)} · ${updatedPhrase(stat)}</p>
</div>
<div>${topBars(stat)}</div>
<div>${stat.status === 'draft' ? '' : inlineSparkline(stat, 300, 72)}<p class="muted small" style="margin:2px 0 0">Leader, 24 h, up = better</p></div>
</article>`;
}

/** The home page: a leaderboard of every benchmark. */
export function homePage(input: HomePageInput): string {
  const live = input.stats;
  const rows = live.map(boardRow).join('\n');
  return layout(
    {
      title: 'Open, citable benchmarks of crypto data providers',
      description: `${live.length} benchmarks with rankings, methodology, day snapshots and citations.`,
      url: `${input.baseUrl}/`,
      siteName: input.siteName,
      simulated: input.simulated,
      section: 'home',
    },
    `<p class="eyebrow">Leaderboard</p>
<h1>Open, citable benchmarks of crypto data providers</h1>
<p class="muted">Every number links to its methodology and raw measurements. Data is CC-BY-4.0; press <kbd>/</kbd> to search, or pin a citation to a day with <a href="/api/citable">/api/citable/YYYY-MM-DD</a>.</p>
<section class="board" aria-label="Benchmarks">
${rows}
</section>`,
  );
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The verdict cell (HTML): "Mobula" with the sign test under it, "Statistically tied (sign test
 * p = 0.41, 47 cycles)", "Tie", or "Not comparable: no data for codex in the same window". A
 * statistical tie is worded by compareVerdict, never shown as a win.
 */
function verdictCell(r: CompareRow, c: Compare): string {
  if (!r.comparable || (r.winner === 'tie' && r.significance)) {
    return esc(capitalized(compareVerdict(r, c.a.name, c.b.name)));
  }
  if (r.winner === 'tie') return 'Tie';
  const name = esc(r.winner === 'a' ? c.a.name : c.b.name);
  const sig = r.significance;
  return sig
    ? `${name}<span class="sub">sign test ${esc(formatP(sig.pValue))}, ${sig.pairs} cycles</span>`
    : name;
}

/** What a compare row's values are, by the derivation mode of its benchmark. */
const COMPARE_NOTES = {
  window: 'p50 over the (cell, cycle) pairs both providers measured in the last 24 h',
  latest: 'latest listing count',
  /** No shared pair: each side is the value its own ranking row publishes. */
  unpaired: "each provider's own p50 over the last 24 h (no shared pair)",
} as const;

/** What a row's two values are, from its benchmark's derivation mode. */
function noteOf(r: CompareRow, mode: DerivationMode | undefined): string | null {
  if (mode === 'latest') return COMPARE_NOTES.latest;
  if (mode === 'window')
    return r.reason === 'no-shared-pairs' ? COMPARE_NOTES.unpaired : COMPARE_NOTES.window;
  return null;
}

/**
 * A side with no data or an unresponsive side leaves nothing to set against the other: neither value
 * is shown. Different kinds keep their counts, each true of its own listing.
 */
function showsValues(r: CompareRow): boolean {
  return !(r.reason?.startsWith('no-data:') || r.reason?.startsWith('unresponsive:'));
}

export interface ComparePageInput {
  readonly siteName: string;
  /** The spec's derivation mode of each shared benchmark (its values' meaning). */
  readonly modeOf: (slug: string) => DerivationMode | undefined;
}

/**
 * The head-to-head page (`comparePageUrl`). The two values follow the benchmark's name, so a phone
 * shows them without scrolling; the statistic and what it is are written under the name.
 */
export function comparePage(c: Compare, input: ComparePageInput): string {
  const modes = new Set<string>();
  const rows = c.shared
    .map((r) => {
      const mode = input.modeOf(r.slug);
      if (mode) modes.add(mode);
      const note = noteOf(r, mode);
      const shown = showsValues(r);
      const value = (v: number | null, ci: readonly [number, number] | null | undefined) =>
        shown
          ? `<td>${v === null ? esc(fmt(v, r.unit)) : valueWithCi(v, ci, r.unit, true)}</td>`
          : '<td class="muted" title="not comparable: no value shown">–</td>';
      return `<tr>
<td class="name"><a href="${esc(pathOf(r.pageUrl))}">${esc(r.title)}</a><br><span class="muted small">${esc(r.metric)} (${esc(unitLabel(r.unit))})${note ? `: ${esc(note)}` : ''}</span></td>
${value(r.aValue, r.aCi95)}
${value(r.bValue, r.bCi95)}
<td class="name${r.comparable ? '' : ' muted'}"${r.comparable ? '' : ' data-testid="not-comparable"'}${r.winner === 'tie' && r.significance ? ' data-testid="statistical-tie"' : ''}>${verdictCell(r, c)}</td>
</tr>`;
    })
    .join('\n');
  const says = [
    modes.has('window') ? `for window benchmarks, the ${COMPARE_NOTES.window}` : '',
    modes.has('latest') ? `for listings, each provider's ${COMPARE_NOTES.latest}` : '',
  ].filter(Boolean);
  // How a window row is decided: intervals that overlap or not are no verdict, the paired test is.
  const decided = c.shared.some((r) => r.significance)
    ? `<p class="muted small" data-testid="verdict-rule">On window benchmarks a side is better only when the paired sign test (one value per cycle) gives p &lt; ${SIGNIFICANCE}, the two p50s differ by more than the benchmark's margin, and most cycles favour it; otherwise the row is a statistical tie, counted with the ties. Each value is the p50 over the samples both were measured on, with its 95% interval from those samples (<a href="/methodology#uncertainty">how</a>).</p>`
    : '';
  return layout(
    {
      title: `${c.a.name} vs ${c.b.name}`,
      description: `${c.a.name} ${c.totalWins.a} wins, ${c.b.name} ${c.totalWins.b} wins, ${c.totalWins.tie} ties across ${c.shared.length} shared benchmarks.`,
      url: c.comparePageUrl,
      siteName: input.siteName,
      simulated: c.simulated === true,
    },
    `<p class="eyebrow">Head to head</p>
<h1>${providerLink(c.a.slug, c.a.name)} vs ${providerLink(c.b.slug, c.b.name)}</h1>
<p data-testid="score" class="value" style="font-size:1.6rem">${esc(c.a.name)} ${c.totalWins.a} · ${esc(c.b.name)} ${c.totalWins.b} · ties ${c.totalWins.tie}</p>
${c.notComparable ? `<p class="muted">${c.notComparable} of ${c.shared.length} not comparable: counted as ties, with the reason in the last column (<a href="/methodology#compare">why</a>); where one side has no data or is unresponsive, neither value is shown.</p>` : ''}
<div class="wrap"><table>
<thead><tr><th class="l">Benchmark, statistic (unit)</th><th>${esc(c.a.name)}</th><th>${esc(c.b.name)}</th><th class="l">Better</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
${decided}
<p class="muted small" data-testid="compare-note">${says.length ? `Values: ${esc(says.join('; '))}. ` : ''}<a href="/api/compare/${esc(c.a.slug)}/${esc(c.b.slug)}">JSON</a></p>`,
  );
}
