import { z } from 'zod';
import { statSchema } from '../../core/api-schemas.ts';
import type { BenchmarkSpec } from '../../core/spec-schema.ts';
import { type BuiltTool, buildTool, type ToolResult, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { dimensionArgs, dimensionValues } from './dimension-args.ts';
import { publicationFailure } from './errors.ts';

/**
 * Closed: an argument no benchmark declares is a tool error naming the ones the tool takes, never
 * dropped; a dimension another benchmark declares is refused by resolveFilters with this one's.
 */
const inputOf = (specs: readonly BenchmarkSpec[]) =>
  z.strictObject({
    slug: z.string().min(1).max(100).describe('Benchmark slug, as list_benchmarks returns it.'),
    date: z
      .string()
      .max(32)
      .optional()
      .describe(
        'A closed UTC day, YYYY-MM-DD: the Stat frozen with that day, exactly as GET /api/stat/{slug}?date= serves it (default: live). A day is frozen unfiltered: no dimension with it.',
      ),
    ...dimensionArgs(specs),
    detail: z
      .enum(['full', 'summary'])
      .default('full')
      .describe(
        '"full" (default): exactly the HTTP Stat. "summary": value, leader, rankings, headline, quote, page URL and as-of only.',
      ),
  });

/** The compact answer for agents with little context. */
export const statSummarySchema = z.object({
  slug: z.string(),
  title: z.string(),
  unit: z.string(),
  status: z.string(),
  value: z.number().nullable(),
  leader: z.object({ name: z.string(), slug: z.string(), value: z.number() }).nullable(),
  rankings: z.array(
    z.object({
      rank: z.int().nullable(),
      slug: z.string(),
      name: z.string(),
      value: z
        .number()
        .nullable()
        .describe(
          'p50 in the benchmark unit; null for a row with no comparison (nothing to score it against)',
        ),
      ci95: z
        .tuple([z.number(), z.number()])
        .nullable()
        .describe(
          "The p50's interval [lo, hi] in the benchmark unit, at least 95% coverage if samples were independent (window benchmarks); null for a listing count or too few samples. Quote it beside the value.",
        ),
      tiedWithLeader: z
        .boolean()
        .optional()
        .describe(
          'Ranked rows below the leader: true when the data cannot separate this row from the leader. Say "tied", never "behind".',
        ),
      insufficientData: z
        .boolean()
        .optional()
        .describe(
          "True when the row has fewer samples than the benchmark's minSamples: shown, never ranked.",
        ),
      note: z
        .string()
        .optional()
        .describe('"unresponsive", "no comparison" or "too few samples": shown, not ranked'),
    }),
  ),
  headline: z.string(),
  quote: z.string(),
  pageUrl: z.string(),
  asOf: z.string().nullable(),
  simulated: z.literal(true).optional(),
});

/** The summary answer: exported so the surfaces test reads what an agent reads. */
export function summaryOf(stat: z.infer<typeof statSchema>): z.infer<typeof statSummarySchema> {
  return {
    slug: stat.slug,
    title: stat.title,
    unit: stat.unit,
    status: stat.status,
    value: stat.value,
    leader: stat.leader,
    rankings: stat.rankings.map((r) => ({
      rank: r.rank,
      slug: r.slug,
      name: r.name,
      // A lone row's ms are not scores (a lone capture is 100% by construction): none is given.
      value: r.noComparison ? null : r.ms.p50,
      ci95: r.noComparison ? null : (r.ci95?.p50 ?? null),
      ...(r.tiedWithLeader !== undefined && { tiedWithLeader: r.tiedWithLeader }),
      ...(r.insufficientData !== undefined && { insufficientData: r.insufficientData }),
      ...(r.unresponsive
        ? { note: 'unresponsive' }
        : r.noComparison
          ? { note: 'no comparison' }
          : r.insufficientData
            ? { note: 'too few samples' }
            : {}),
    })),
    headline: stat.headline,
    quote: stat.quote,
    pageUrl: stat.pageUrl,
    asOf: stat.asOf,
    ...(stat.simulated ? { simulated: true as const } : {}),
  };
}

const decoder = new TextDecoder();
/**
 * The stat bytes are cached by the publication; decode, parse and wrap each distinct body once, so
 * repeated calls return the same result object (which the fast path serializes once too).
 */
const results = new WeakMap<Uint8Array, ToolResult>();

function resultFor(body: Uint8Array): ToolResult {
  let r = results.get(body);
  if (!r) {
    const text = decoder.decode(body);
    r = toolOk(JSON.parse(text) as Record<string, unknown>, text);
    results.set(body, r);
  }
  return r;
}

/** The dimensions that exist, per benchmark, from the specs (never one no benchmark declares). */
function dimensionsText(specs: readonly BenchmarkSpec[]): string {
  const parts: string[] = [];
  for (const s of specs) {
    for (const [d, dim] of Object.entries(s.dimensions)) {
      if (!dim) continue;
      // A data-valued dimension's values are the ones measured: named by the Stat, not guessed here.
      const values = dim.fromData
        ? '(the measured values its Stat lists under dimensions)'
        : dim.values.map((v) => v.value).join('|');
      parts.push(`${s.slug} ${d}=${values}`);
    }
  }
  return parts.join('; ') || 'none';
}

/** A dated call, judged as GET /api/stat/{slug}?date= judges it: filters refused, then the day. */
async function frozenDay(
  publication: ToolContext['publication'],
  slug: string,
  date: string,
  args: Readonly<Record<string, unknown>>,
  detail: 'full' | 'summary',
): Promise<ToolResult> {
  const dims = Object.entries(dimensionValues(args)).filter(([, v]) => v !== undefined);
  if (dims.length > 0) {
    return toolError(
      'bad_request',
      `A dated Stat is the unfiltered one frozen with the day; drop ${dims.map(([d]) => d).join(', ')}.`,
    );
  }
  if (!publication.frozenStat) return toolError('unavailable', 'Frozen days are not available here.');
  const r = await publication.frozenStat(slug, date);
  if (r.kind === 'today') {
    return toolError(
      'not_frozen',
      `${date} is today: it is frozen after it closes. Omit date for live values.`,
    );
  }
  if (r.kind !== 'ok') return toolError(r.kind, r.message ?? `${date.slice(0, 20)} has no frozen snapshot.`);
  const result = resultFor(r.served.body);
  if (detail === 'summary') return toolOk(summaryOf(result.structuredContent as z.infer<typeof statSchema>));
  return result;
}

export function getBenchmarkTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  const slugs = publication.specs.map((s) => s.slug);
  return buildTool({
    name: 'get_benchmark',
    title: 'Get one Citebench benchmark',
    description: [
      'Returns one benchmark exactly as GET /api/stat/{slug} serves it: current value and leader, rankings (every provider with p50/p90/p99/mean in the benchmark unit, successRate, sampleSize; best first),',
      'a 24-hour sparkline of the leader, a headline and a paste-ready quote, citations (plain, BibTeX, APA, RIS), methodology, source, pageUrl and asOf.',
      `Optionally narrow with a dimension the benchmark declares: ${dimensionsText(publication.specs)}.`,
      'With detail="summary" it returns only value, leader, rankings (slug, name, p50 with its ci95 interval, tiedWithLeader, insufficientData), headline, quote, pageUrl and asOf.',
      'Window benchmarks give each p50 a 95% interval (ci95.p50 in full, ci95 in summary): quote it beside the value. A row with tiedWithLeader true is statistically tied with the leader: call the two tied, never say the leader is ahead of it; a row with insufficientData has too few samples and no rank.',
      'With date (a closed UTC day) it returns the Stat frozen with that day, which never changes: cite it for a number that must stay reproducible.',
      'Cite the returned pageUrl and use `quote` as the attribution line. Unknown slugs, values or arguments return an error listing the valid choices.',
    ].join(' '),
    input: inputOf(publication.specs),
    output: z.union([statSchema, statSummarySchema]),
    async run(args) {
      const { slug, detail } = args;
      if (!publication.spec(slug)) {
        return toolError(
          'unknown_benchmark',
          `Unknown benchmark "${slug}". Valid slugs: ${slugs.join(', ')}.`,
        );
      }
      try {
        if (args.date !== undefined) return await frozenDay(publication, slug, args.date, args, detail);
        // Inside: region values the store could not read are its failure (engine_unavailable).
        const resolved = publication.resolveFilters(slug, dimensionValues(args));
        if (!resolved.ok) return toolError(resolved.error, resolved.message);
        const served = await publication.stat(slug, resolved.filters);
        if (detail === 'summary') return toolOk(summaryOf(served.value));
        return resultFor(served.body);
      } catch (e) {
        return publicationFailure(e, slugs);
      }
    },
  });
}
