import { EVAL_GRID_MAX_MS } from '../core/eval-point.ts';
import { formatValue, marginPhrase } from '../core/format.ts';
import type { Provenance } from '../core/provenance.ts';
import { ORIGIN_LABEL, SIMULATED_ORIGIN } from '../core/sample-origin.ts';
import { harnessSourceUrl } from '../core/source-url.ts';
import { SPARKLINE_MIN_SPAN } from '../core/sparkline-svg.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import {
  DEFAULT_MIN_SAMPLES,
  DEFAULT_RELIABILITY_MARGIN,
  orderStatRanks,
  SIGNIFICANCE,
  TAIL,
} from '../core/uncertainty.ts';
import { UNRESPONSIVE_AFTER } from '../core/unresponsive.ts';
import type { Site } from '../core/urls.ts';
import { esc, layout } from './html.ts';

/** "Leader and ties" → "leader-and-ties": a stable anchor other pages link to. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * What the time in a headline is (linked as /methodology#as-of): it differs by derivation mode, and
 * a reader citing a listing count needs to know the count may be older than the page.
 */
const AS_OF = `<section id="as-of">
<h2 id="as-of">What "as of" means</h2>
<p>${esc(
  'A headline that ends "as of <time>" reads a listing (a benchmark whose value is each provider\'s latest listing, such as a count of networks): the time is the leader\'s own sample, when its latest successful listing was read. A failed listing leaves the previous count in place, so that time can be older than the page; it is never the time of the page or of the request.',
)}</p>
<p>${esc(
  'A window statistic has no single sample time: its headline says "p50 over 24h", the p50 over every sample of the 24 hours up to the view\'s evaluation point (see Live values). In both cases "updated <time>" on a page is the newest sample behind the view, and a view whose newest sample is older than twice the cadence is marked stale.',
)}</p>
</section>`;

/**
 * The section #harness: today's provenance, as the live /api/citable publishes it (this build, the
 * harness builds of the last 24 h with their cycles) and each spec's hash and source.
 */
function harnessSection(
  specs: readonly BenchmarkSpec[],
  site: Site,
  provenance: Provenance | undefined,
): string {
  // The Stats' own rule (SOURCE_URL with {family} replaced), so the page and the JSON agree.
  const sourceOf = (spec: BenchmarkSpec) => harnessSourceUrl(site, spec.family);
  const code = (v: string | undefined) => (v ? `<code>${esc(v)}</code>` : '—');
  const built = provenance
    ? `This page and today's views were computed by version ${code(provenance.version)}, revision ${code(provenance.revision)}.`
    : 'Provenance is not available right now.';
  const builds = provenance?.measuredBy ?? [];
  const measured =
    builds.length === 0
      ? '<p>No harness cycle was stored in the last 24 hours.</p>'
      : `<div class="wrap"><table>
<thead><tr><th>Harness version</th><th>Revision</th><th>Region</th><th>Cycles</th></tr></thead>
<tbody>
${builds.map((b) => `<tr><td>${code(b.version)}</td><td>${code(b.revision)}</td><td>${b.region ? esc(b.region) : '—'}</td><td>${b.cycles}</td></tr>`).join('\n')}
</tbody>
</table></div>`;
  const hashes = provenance?.specs ?? {};
  const rows = specs
    .map(
      (s) =>
        `<tr><td><a href="/benchmarks/${esc(s.slug)}">${esc(s.slug)}</a></td><td>${code(hashes[s.slug])}</td><td><a href="${esc(sourceOf(s))}">${esc(sourceOf(s))}</a></td></tr>`,
    )
    .join('\n');
  return `<section id="harness">
<h2 id="harness">Harness and provenance</h2>
<p>${esc(
    "Every cycle the harness stores, beside its cycle marker, harness_build_info{benchmark, version, revision, region} = 1: its package.json version, its git revision (CITEBENCH_REVISION, else the checkout's HEAD) and its HARNESS_REGION. Each view names the build that computed it and the builds that measured its window in site.provenance of /api/citable (the last 24 hours) and /api/citable/{date} (that UTC day, frozen with it); a closed day's dataset manifest, /api/dataset/{date}.json, and its Parquet metadata carry the same object. A spec's hash is the sha256 of the canonical JSON of the parsed spec with defaults applied, so comments, key order and quoting do not change it; an edit changes it from the next frozen day on, never a day already frozen. citebench spec-hash <file> prints it.",
  )}</p>
<p>${built}</p>
<h3>Measured by, last 24 hours</h3>
${measured}
<h3>Specs</h3>
<div class="wrap"><table class="breaks">
<thead><tr><th>Benchmark</th><th>sha256</th><th>Source</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
</section>`;
}

/** The fewest samples for which the q-quantile has an interval (6 for p50, 36 for p90, 368 for p99). */
function fewestFor(q: number): number {
  let n = 1;
  while (!orderStatRanks(n, q)) n++;
  return n;
}

/** Read from the code that applies them, so the page cannot drift from the rule. */
const FEWEST = { p50: fewestFor(0.5), p90: fewestFor(0.9), p99: fewestFor(0.99) };
const TAIL_PCT = formatValue(TAIL * 100, 'count');
const COVERAGE_PCT = formatValue(100 - 2 * TAIL * 100, 'count');

/** Each window benchmark's margin and minimum, as its spec states them: "token-trade-coverage 0.5-point (minSamples 10)". */
function marginsOf(specs: readonly BenchmarkSpec[]): string {
  const parts = specs.flatMap((s) => {
    const d = s.derivation;
    return d.mode === 'window'
      ? [`${s.slug} ${marginPhrase(d.tieMargin, s.unit)} (minSamples ${d.minSamples})`]
      : [];
  });
  return parts.length ? parts.join('; ') : 'no window benchmark is published';
}

/** The "Uncertainty" entries: intervals, the paired test, and when a difference is a verdict. */
function uncertaintyRules(specs: readonly BenchmarkSpec[]): [string, string][] {
  return [
    [
      'Uncertainty',
      `Every p50, p90 and p99 of a window benchmark carries ci95, a distribution-free interval from order statistics: sort the row's n samples and, with B ~ Bin(n, q), take x(l) for the largest l with P(B ≤ l − 1) ≤ ${TAIL_PCT}% and x(u) for the smallest u with P(B ≥ u) ≤ ${TAIL_PCT}%. Its coverage is at least ${COVERAGE_PCT}% (each tail at most ${TAIL_PCT}%, more with ties or discrete values), not exactly ${COVERAGE_PCT}%; it is computed exactly (no resampling, no normal approximation), so the same samples always give the same interval. It is null where no such rank exists: p50 below ${FEWEST.p50} samples, p90 below ${FEWEST.p90}, p99 below ${FEWEST.p99}; the mean has none. A row with fewer samples than its benchmark's minSamples (${DEFAULT_MIN_SAMPLES} unless the spec says otherwise) is marked insufficientData: listed, never ranked, never the leader; a compare row needs as many shared samples on each side (else not comparable, insufficient-data). A count read from a listing has no sampling error: ci95 is null and the rules below do not apply. Caveats: the intervals treat samples as independent, so they are narrower than the day-to-day spread; consecutive cycles can still be correlated, which the paired test below does not remove; comparisons with the leader are not corrected for multiplicity (with many rows, one may look separated by chance).`,
    ],
    [
      'Paired sign test',
      "The cells of one cycle share a provider's state (one outage, one network path), so the unit of a comparison is the cycle, not the sample. For each (region, cycle) in which both providers were measured on a common cell, the paired value is the median over those cells of a − b. The exact two-sided sign test drops zeros and, with m non-zero values of which k+ are positive and k− negative, gives p = min(1, 2·P(Bin(m, ½) ≤ min(k+, k−))), p = 1 when m = 0; pairs is m.",
    ],
    [
      'Statistical ties',
      `Unless reliability decides it (see Reliability first), a side wins a comparison (a compare row, or a ranked row against the leader) only when all three hold: the sign test gives p < ${SIGNIFICANCE}; the two ranked statistics (the p50, or the mean where the benchmark ranks by it), each over the (cell, cycle) pairs both providers were measured on, differ by more than the benchmark's tieMargin, the smallest difference worth a verdict (significance alone would crown trivial differences, since tens of thousands of samples make anything significant); and more paired values favour the side with the better statistic. The leader test (vsLeader, with its delta) and compare take the difference from the same shared pairs, so the two never disagree on a pair. Otherwise there is no winner, and the reason is the first condition that failed: not-significant or within-margin, a statistical tie; or conflicting, when the difference is significant and beyond the margin but most paired values favour the other side: the data separate the two in opposite directions, which is said in those words and never called a statistical tie. Margins: ${marginsOf(specs)}.`,
    ],
    [
      'Reliability first',
      `Failing cannot buy a rank. For two providers, their failure shares are compared on the probes both were sent on the same cell and cycle; the paired value of a (region, cycle) is the difference of their failure shares there, and the same exact sign test applies. A provider whose failure share exceeds the other's by more than the benchmark's reliabilityMargin (${DEFAULT_RELIABILITY_MARGIN} percentage point unless its spec says otherwise), with p < ${SIGNIFICANCE} and most paired values against it, is less reliable than it. Ranked rows are ordered by how many providers are more reliable than them (fewest first), then by the ranked statistic, so a provider never ranks above, leads or wins a compare against one more reliable than it; a row names those providers in lessReliableThan, and a compare row shows the test in reliability. The order does not depend on the order providers are listed in, and it cannot cycle: it is a count, then a number. Rows equal on both are ordered by their net wins in paired cycles against each other, then by success rate, sample size and slug. This holds for every window benchmark, whatever its family. A failed probe also counts against the value it would have measured: a time stands at the probe's timeout, and a value with no timeout to stand at (a lag) at the larger of the benchmark's failedValue and the worst value answered on the same cell in the same cycle, so failing never scores better than answering.`,
    ],
  ];
}

/** The page's table of contents: the shared rules, then the sections, then every benchmark. */
function contents(rules: readonly (readonly [string, string])[], specs: readonly BenchmarkSpec[]): string {
  const item = (id: string, text: string) => `<li><a href="#${esc(id)}">${esc(text)}</a></li>`;
  return `<nav class="toc" aria-label="Contents" data-testid="toc"><ol>
${rules.map(([t]) => item(anchor(t), t)).join('\n')}
${item('as-of', 'What "as of" means')}
${item('harness', 'Harness and provenance')}
${specs.map((s) => item(s.slug, s.title)).join('\n')}
</ol></nav>`;
}

/**
 * /methodology: the site-wide rules (statistics, leaders, ties, statuses, aggregation across cells,
 * compare, snapshots, citations), built from the same constants the code uses, then each
 * benchmark's own methodology as its spec states it.
 */
export function methodologyPage(
  specs: readonly BenchmarkSpec[],
  site: { name: string; url: string; simulated?: boolean; sourceUrl?: string },
  freezeGraceMinutes: number,
  provenance?: Provenance,
): string {
  const rules: [string, string][] = [
    [
      'Statistics',
      'p50, p90 and p99 interpolate linearly between closest ranks over the samples in the 24-hour window (the definition of Prometheus quantile_over_time and DuckDB quantile_cont); values are in the benchmark unit even where the field is called ms.',
    ],
    [
      'Success rate',
      "successRate is the share of successful probes among every probe the provider was sent on the view's cells and cycles, failed ones included: whether or not a capture value exists for that cycle (a failure on a cell where every other provider returned zero stores no capture, since 0/0 is no score) and whether or not the provider was alone on the cell. The fair-aggregation rule narrows the capture statistics, never the failures.",
    ],
    [
      'Percentages',
      'Every percentage is part / whole × 100, computed by one function, with no value when the whole is 0. Statistics are computed from the unrounded values; a published percentage (a capture rate, its p50, a success rate, an audit cell) is rounded once, to six significant digits.',
    ],
    [
      'Leader and ties',
      'The leader is rankings[0] on every surface and the value is its ranked statistic: the p50, or the mean on a benchmark that ranks by the mean because its p50 is degenerate (head lag, whose best p50s are all 0); the sparkline draws the same statistic. Rows are ranked by reliability first (see Reliability first). On a window benchmark each ranked row below the leader carries vsLeader, its sign test against the leader and the difference over their shared pairs, and tiedWithLeader: a lead within the data\'s uncertainty (see Statistical ties) is shown as a statistical tie, "A and B are statistically tied at the top", never as a lead, and conflicting evidence as "cannot be separated at the top". Ranks and the value are unchanged.',
    ],
    ...uncertaintyRules(specs),
    [
      'Draft and stale',
      'A benchmark never measured is a draft (no value, nothing to cite). One whose newest sample is older than twice its cadence is stale: its last values stay visible, marked stale, and /api/freshness keeps its timestamp.',
    ],
    [
      'Unresponsive providers',
      `A cycle of 5xx is one in which at least half of a provider's probes got a 5xx; ${UNRESPONSIVE_AFTER} consecutive cycles of 5xx mark it unresponsive (a row without a rank) until its next cycle that is not. The marker is derived from the stored per-cycle samples and computed on the view, like every other row field: under ?region= only that region's cycles count; across regions a provider is unresponsive only when it is so in every region.`,
    ],
    [
      'Aggregation across cells',
      'A (chain, token) cell enters any aggregate over several cells only for cycles in which at least two providers were measured on it. A provider alone on its cells is shown with "no comparison" and never ranked: its 100% is true by construction. The sparkline and /api/series follow the same rule: a window in which the provider had no comparable pair is a gap (drawn as carried, never as measured), not the lone samples\' 100%.',
    ],
    [
      'Compare',
      'A compare row has a winner only when both providers have a value from the same window, neither is unresponsive and both count the same kind of thing (on network-coverage, providers of different kinds are not comparable). Token-trade compares use the same pair rule as the rankings: each side\'s p50 over only the (cell, cycle) pairs both providers were measured on. Where the two share no pair, each side shows the value its own ranking row publishes and the row is not comparable (no-shared-pairs). Otherwise the row says "not comparable" with its reason and counts as a tie. The direction comes from the metric alone (higher or lower is better). On a window benchmark a comparable row also needs the verdict rule (see Statistical ties): a statistical tie stays comparable, keeps its delta and counts as a tie; on a listing any difference wins.',
    ],
    [
      'Live values',
      `A live view is evaluated at its evaluation point: the later of its benchmark's newest sample and the last point, at or before now, of a grid of min(${EVAL_GRID_MAX_MS / 60_000} min, cadence) steps from 00:00 UTC. Its 24-hour window ends there, and staleness is judged there, so a benchmark that stops reporting is marked stale at most one step late. Two servers holding the same samples publish the same bytes, whatever their clocks say inside a step. A view is recomputed when its point moves: as soon as new samples for its benchmark are written, or when the grid passes while none arrive. When only the grid moved, the previous answer may still be served while its successor is computed; an answer is never served after a sample that changes it was written.`,
    ],
    [
      'Day snapshots',
      `A UTC day is frozen once, ${freezeGraceMinutes} minutes after it closes (and at start-up for any closed day not frozen yet), from the samples whose timestamps fall in that day and the specs as they were then, stored beside it. Its index and each benchmark's Stat are serialized canonically and never change: later samples for that day are counted, not applied. Every link inside a snapshot carries ?date=, so a citation made from it resolves to the same numbers years later.`,
    ],
    [
      'Charts',
      `Every sparkline is the leader's series over the last 24 hours, drawn so that up means better, with its lowest and highest values labelled. A change smaller than ${SPARKLINE_MIN_SPAN.pctPoints} point for a percentage, or ${SPARKLINE_MIN_SPAN.relative * 100}% of the value otherwise, is never stretched to the full height; a flat series is a flat line with its value.`,
    ],
    [
      'Simulated data',
      `Samples measured against the simulated providers (the demo, serve --simulate) are stored with the label ${ORIGIN_LABEL}="${SIMULATED_ORIGIN}". A deployment serving them says so on every page, in every quote and citation, in the JSON (simulated: true) and on every image; a store never mixes simulated and measured samples.`,
    ],
    [
      'Citations',
      'A live citation says "Retrieved <today>" and is never cached past 00:00 UTC; /api/cite/{slug}/{format}?date=YYYY-MM-DD gives the citation of that frozen day, which names the day it is a snapshot of and no retrieval date (its content cannot change). Data is CC-BY-4.0.',
    ],
  ];
  const benches = specs
    .map(
      (s) => `<h2 id="${esc(s.slug)}"><a href="/benchmarks/${esc(s.slug)}">${esc(s.title)}</a></h2>
<ol>
${s.methodology.map((m) => `<li>${esc(m)}</li>`).join('\n')}
</ol>`,
    )
    .join('\n');
  return layout(
    {
      title: 'Methodology',
      description: `How ${site.name} measures, aggregates, compares, freezes and cites every benchmark.`,
      url: `${site.url}/methodology`,
      siteName: site.name,
      simulated: site.simulated === true,
      section: 'methodology',
    },
    `<h1>Methodology</h1>
${contents(rules, specs)}
<dl>
${rules.map(([t, d]) => `<dt id="${esc(anchor(t))}"><strong>${esc(t)}</strong></dt><dd>${esc(d)}</dd>`).join('\n')}
</dl>
${AS_OF}
${harnessSection(specs, { name: site.name, baseUrl: site.url, ...(site.sourceUrl ? { sourceUrl: site.sourceUrl } : {}) }, provenance)}
${benches}`,
  );
}
