import type { ProfileBenchmark, ProviderProfile, UnrankedReason } from '../core/api-schemas.ts';
import { formatValue, listed } from '../core/format.ts';
import { PROVIDERS } from '../core/providers.ts';
import { agoTime, esc, layout } from './html.ts';
import { fmt, pathOf, unitLabel, valueWithCi } from './view-parts.ts';

/** What a reader sees instead of a rank, for each reason a row has none. */
const UNRANKED_WORDS: Record<UnrankedReason, string> = {
  unresponsive: 'unresponsive (three consecutive cycles of 5xx)',
  noComparison: 'no comparison (measured alone, never ranked)',
  insufficientData: "too few samples (below the benchmark's minimum, never ranked)",
  noData: 'no data in the window',
};

/** "+1.2 ms (better)": a change is signed, and said to be better or worse by the metric's direction. */
function changeText(b: ProfileBenchmark): string {
  if (b.change === null) return '';
  if (b.change === 0) return ' · no change';
  const sign = b.change > 0 ? '+' : '−';
  const better = b.change > 0 === b.higherIsBetter;
  // A change of a percentage is in percentage points.
  const size = formatValue(Math.abs(b.change), b.unit).replace(/%$/, ' pp');
  return ` · ${sign}${esc(size)} <span class="muted">(${better ? 'better' : 'worse'})</span>`;
}

function weekAgoLine(b: ProfileBenchmark): string {
  const w = b.weekAgo;
  if (!w) return '<li data-testid="week-ago">7 days ago: <span class="muted">no frozen row</span></li>';
  const rank = w.rank === null ? 'unranked' : `rank ${w.rank}`;
  // The frozen Stat the row was read from, as published that day.
  const frozen = `/api/stat/${encodeURIComponent(b.slug)}?date=${w.date}`;
  return `<li data-testid="week-ago">7 days ago (<a href="${esc(frozen)}">${esc(w.date)}</a>): ${esc(fmt(w.value, b.unit))}, ${rank}${changeText(b)}</li>`;
}

function benchmarkCard(b: ProfileBenchmark, name: string): string {
  const standing =
    b.rank !== null
      ? `<strong>Rank ${b.rank}</strong>${b.rank === 1 ? ' <span class="badge live">leader</span>' : ''}`
      : `<span class="badge" data-testid="unranked">unranked</span> <span class="muted">${esc(UNRANKED_WORDS[b.unranked ?? 'noData'])}</span>`;
  const value =
    b.value === null
      ? '<span class="muted">–</span>'
      : `<strong>${valueWithCi(b.value, b.ci95, b.unit)}</strong>`;
  const others = b.tiedAtTop.map((p) => PROVIDERS.get(p)?.name ?? p);
  const tied = b.tiedWithLeader
    ? `<p class="muted small" data-testid="tied-note">Statistically tied with the leader: the data cannot separate ${esc(name)} from it.</p>`
    : others.length > 0
      ? `<p class="muted small" data-testid="tied-note">Statistically tied at the top with ${esc(listed(others))}: the data cannot separate ${esc(name)} from ${others.length === 1 ? 'it' : 'them'}.</p>`
      : '';
  const facts = [
    `<li>p50 (${esc(unitLabel(b.unit))}): ${value}</li>`,
    `<li>Success rate: ${b.successRate === null ? '–' : `${esc(String(b.successRate))}%`}</li>`,
    `<li>Samples: ${b.sampleSize.toLocaleString('en-US')}</li>`,
    weekAgoLine(b),
  ];
  const links = [
    `<a href="${esc(pathOf(b.links.page))}">Benchmark</a>`,
    `<a href="${esc(pathOf(b.links.api))}">JSON</a>`,
    `<a href="${esc(pathOf(b.links.audit))}">Raw measurements</a>`,
    ...(b.links.compare ? [`<a href="${esc(pathOf(b.links.compare))}">Versus the leader</a>`] : []),
  ];
  return `<article class="card" data-testid="profile-benchmark" data-slug="${esc(b.slug)}">
<h2 style="margin:0 0 .3em"><a href="${esc(pathOf(b.links.page))}">${esc(b.title)}</a></h2>
<p style="margin:.2em 0">${standing}</p>
${tied}<ul class="facts">${facts.join('')}</ul>
<p class="actions small">${links.join('')}</p>
</article>`;
}

export interface ProviderPageInput {
  readonly siteName: string;
  /** The page's own absolute URL (canonical). */
  readonly url: string;
  /** The day the profile is pinned to (frozen), or null for the live one. */
  readonly day: string | null;
}

/** /providers/{slug}: one provider on every benchmark listing it (the profile JSON, in words). */
export function providerPage(p: ProviderProfile, input: ProviderPageInput): string {
  const name = p.provider.name;
  const cards = p.benchmarks.map((b) => benchmarkCard(b, name)).join('\n');
  const ranked = p.benchmarks.filter((b) => b.rank !== null).length;
  const api = `/api/providers/${encodeURIComponent(p.provider.slug)}${input.day ? `?date=${input.day}` : ''}`;
  return layout(
    {
      title: `${name}: provider profile`,
      description: `${name} on ${p.benchmarks.length} benchmarks (${ranked} ranked): rank, p50 with its 95% interval, success rate and the change over 7 days.`,
      url: input.url,
      siteName: input.siteName,
      simulated: p.simulated === true,
    },
    `<p class="eyebrow">Provider${input.day ? ` · frozen ${esc(input.day)}` : ''}</p>
<h1>${esc(name)}</h1>
<p class="muted"><a href="${esc(p.provider.website)}" rel="noopener nofollow">${esc(p.provider.website)}</a> · ${p.benchmarks.length} benchmarks · data ${agoTime(p.asOf)}${p.simulated ? ' · <strong>simulated data</strong>' : ''}</p>
${p.benchmarks.length ? cards : '<p class="muted">No benchmark lists this provider yet.</p>'}
<p class="muted small">Values are each benchmark's p50 in its unit, from its unfiltered 24 h Stat; 7 days ago is the row of the Stat frozen that day, as published. <a href="${esc(api)}">JSON</a> · <a href="/methodology">How we measure</a></p>`,
  );
}
