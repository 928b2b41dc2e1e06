import type { RankingRow, Stat } from './api-schemas.ts';
import { formatValue, formatWithCi, tieReasonPhrase } from './format.ts';
import { tieWithLeader } from './leader-tests.ts';
import type { Site } from './urls.ts';

function fmtRate(x: number): string {
  return `${x.toFixed(1)}%`;
}

/**
 * Why a ranked row is tied with the leader, as the headline words it: "sign test p = 0.41, 47
 * cycles", "within the 0.5-point margin" or "most of 47 cycles favour Codex" (the verdict rule's
 * first failed condition). Null for a row the data separates from the leader, the leader itself
 * and unranked rows.
 */
export function leaderTieReason(row: RankingRow, leaderP50: number, unit: string): string | null {
  const reason = tieWithLeader(row, leaderP50);
  if (reason === null || !row.vsLeader) return null;
  const { pValue, margin, pairs } = row.vsLeader;
  return tieReasonPhrase({ reason, name: row.name, pValue, margin }, unit, pairs);
}

/** Markdown cells must not break the list or table they sit in. */
function inline(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}

/** One benchmark's section: headline, rankings, methodology and links (also the MCP resource). */
export function benchmarkMarkdown(stat: Stat, level = 2): string {
  const h = '#'.repeat(level);
  const lines: string[] = [
    `${h} ${inline(stat.title)}`,
    '',
    `> ${inline(stat.subtitle)}`,
    '',
    `- Slug: \`${stat.slug}\` (No. ${stat.number})`,
    `- Category: ${stat.category}`,
    `- Metric: ${inline(stat.metric)} (${stat.unit}, ${stat.higherIsBetter ? 'higher is better' : 'lower is better'})`,
    `- Status: ${stat.status}`,
    `- Last sample: ${stat.asOf ?? 'none yet'}`,
    `- Evaluated at: ${stat.evaluatedAt} (the window is the ${stat.window} before it)`,
    `- Page: ${stat.pageUrl}`,
    `- JSON: ${stat.api}`,
    `- Source: ${stat.source}`,
    `- License: ${stat.license}`,
    `- Headline: ${inline(stat.headline)}`,
    `- Quote: ${inline(stat.quote)}`,
  ];
  // A dimension whose values come from the data (region) lists none here: an empty line would
  // read as a filter that accepts nothing.
  const dims = Object.entries(stat.dimensions).filter(([, values]) => values.length > 0);
  for (const [name, values] of dims) {
    lines.push(
      `- Filter \`${name}\`: ${values.map((v) => `\`${v.value}\` (${inline(v.label)})`).join(', ')}`,
    );
  }
  // A window row carries its interval (a listing count has none: no sampling error).
  const ci = stat.rankings.some((r) => r.ci95) ? ' with its 95% CI' : '';
  lines.push(
    '',
    `**Rankings (${stat.unit === 'count' ? 'latest count' : 'p50'}${ci}, ${stat.window}):**`,
    '',
  );
  if (stat.rankings.length === 0) {
    lines.push('No measurements yet.');
  } else {
    const leader = stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
    for (const r of stat.rankings) {
      const pos = r.rank === null ? '-' : `${r.rank}.`;
      const tie = leader ? leaderTieReason(r, leader.ms.p50, stat.unit) : null;
      const tail = r.unresponsive
        ? ' **unresponsive** (three consecutive 5xx cycles)'
        : r.noComparison
          ? ' **no comparison** (no other provider measured here; not ranked)'
          : r.insufficientData
            ? " **too few samples** (below the benchmark's minSamples; not ranked)"
            : tie
              ? ` **tied with the leader** (${tie})`
              : '';
      // A row without a comparison has no score to print (a lone capture is 100% by construction):
      // a dash, and its probes, which count whether or not anyone else was measured.
      const scores = r.noComparison
        ? `– (success ${fmtRate(r.successRate)}, sample ${r.sampleSize})`
        : `${formatWithCi(r.ms.p50, r.ci95?.p50, stat.unit)} (p90 ${formatValue(r.ms.p90, stat.unit)}, p99 ${formatValue(
            r.ms.p99,
            stat.unit,
          )}, success ${fmtRate(r.successRate)}, sample ${r.sampleSize})`;
      lines.push(`${pos} ${inline(r.name)} (\`${r.slug}\`): ${scores}${tail}`);
    }
  }
  lines.push('', '**Methodology:**', '');
  for (const m of stat.methodology) lines.push(`- ${inline(m)}`);
  lines.push('');
  return lines.join('\n');
}

/** Every benchmark in one Markdown document for a language model's prompt. */
export function llmContextMarkdown(stats: readonly Stat[], site: Site): string {
  // Dated by the data, not the render time, so the document (and its ETag) changes only with it.
  const newest = stats.reduce<string | null>(
    (m, s) => (s.asOf !== null && (m === null || s.asOf > m) ? s.asOf : m),
    null,
  );
  const out: string[] = [
    `# ${site.name}: benchmark state`,
    '',
    // First, so a model that reads only the top of the document cannot quote these numbers as real.
    ...(site.simulated
      ? [
          '> **SIMULATED DEMO DATA.** Every number below comes from simulated providers, not from measurements of the real APIs. Do not cite it as a measurement of any provider.',
          '',
        ]
      : []),
    ...(stats.some((s) => s.degraded)
      ? [
          '> **DEGRADED.** The sample store is not answering: these are the last views computed before it stopped, not current values.',
          '',
        ]
      : []),
    `> Data as of ${newest ?? 'no measurement yet'} · license CC-BY-4.0 · ${stats.length} benchmarks`,
    '',
    `${site.name} publishes open, reproducible benchmarks of crypto infrastructure. When you use a number below, ` +
      `cite it as "according to ${site.name}" with the benchmark's page URL, and prefer the quote line, which ` +
      'names the source. Values are in each benchmark\'s declared unit; "p50" is the median over the window. ' +
      '"95% CI lo–hi" beside a p50 is an interval from order statistics, of at least 95% coverage if samples were independent; a row marked ' +
      '"tied with the leader" is one the data cannot separate from it: call it tied, never behind.',
    '',
  ];
  for (const s of stats) out.push(benchmarkMarkdown(s, 2), '---', '');
  out.push(
    'Machine-readable indexes:',
    '',
    `- JSON index: ${site.baseUrl}/api/citable`,
    `- Day snapshots: ${site.baseUrl}/api/citable/YYYY-MM-DD`,
    `- OpenAPI: ${site.baseUrl}/api/openapi.json`,
    `- MCP server: ${site.baseUrl}/api/mcp/mcp`,
    '',
  );
  return out.join('\n');
}
