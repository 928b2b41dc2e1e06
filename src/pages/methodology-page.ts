import { ORIGIN_LABEL, SIMULATED_ORIGIN } from '../core/sample-origin.ts';
import { SPARKLINE_MIN_SPAN } from '../core/sparkline-svg.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { UNRESPONSIVE_AFTER } from '../core/unresponsive.ts';
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
<h2>What "as of" means</h2>
<p>${esc(
  'A headline that ends "as of <time>" reads a listing (a benchmark whose value is each provider\'s latest listing, such as a count of networks): the time is the leader\'s own sample, when its latest successful listing was read. A failed listing leaves the previous count in place, so that time can be older than the page; it is never the time of the page or of the request.',
)}</p>
<p>${esc(
  'A window statistic has no single sample time: its headline says "p50 over 24h", the p50 over every sample of the 24 hours before the view was computed. In both cases "updated <time>" on a page is the newest sample behind the view, and a view whose newest sample is older than twice the cadence is marked stale.',
)}</p>
</section>`;

/**
 * /methodology: the site-wide rules (statistics, leaders, ties, statuses, aggregation across cells,
 * compare, snapshots, citations), built from the same constants the code uses, then each
 * benchmark's own methodology as its spec states it.
 */
export function methodologyPage(
  specs: readonly BenchmarkSpec[],
  site: { name: string; url: string; simulated?: boolean },
  freezeGraceMinutes: number,
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
      'The leader is rankings[0] on every surface and the value is its p50. Ties are broken by higher success rate, then larger sample size, then provider slug.',
    ],
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
      'A compare row has a winner only when both providers have a value from the same window, neither is unresponsive and both count the same kind of thing (on network-coverage, providers of different kinds are not comparable). Token-trade compares use the same pair rule as the rankings: each side\'s p50 over only the (cell, cycle) pairs both providers were measured on. Where the two share no pair, each side shows the value its own ranking row publishes and the row is not comparable (no-shared-pairs). Otherwise the row says "not comparable" with its reason and counts as a tie. The direction comes from the metric alone (higher or lower is better).',
    ],
    [
      'Live values',
      'A live view is recomputed from the stored samples as soon as new samples for its benchmark are written, and at least once a minute as its 24-hour window slides. When no new sample arrived, the previous answer may still be served for up to one more minute while its successor is computed; an answer is never served after a sample that changes it was written.',
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
      'A live citation says "Retrieved <today>" and is never cached past 00:00 UTC; /api/cite/{slug}/{format}?date=YYYY-MM-DD gives the citation frozen with that day. Data is CC-BY-4.0.',
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
<dl>
${rules.map(([t, d]) => `<dt id="${esc(anchor(t))}"><strong>${esc(t)}</strong></dt><dd>${esc(d)}</dd>`).join('\n')}
</dl>
${AS_OF}
${benches}`,
  );
}
