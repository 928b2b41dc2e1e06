import { z } from 'zod';
import { type Compare, compareSchema } from '../../core/api-schemas.ts';
import { compareVerdict } from '../../core/compare.ts';
import { formatValue } from '../../core/format.ts';
import { type BuiltTool, buildTool, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { dimensionArgs, dimensionValues } from './dimension-args.ts';
import { publicationFailure } from './errors.ts';

const slug = z.string().min(1).max(80).describe('Provider slug as in the rankings, e.g. "mobula".');

/**
 * One line per shared benchmark, in words (compareVerdict): who is ahead, a tie, a statistical tie
 * with its sign test or margin, or why the two are not comparable.
 */
export function compareSummary(c: Compare): string {
  const lines = [
    `${c.a.name} vs ${c.b.name}: ${c.a.name} ${c.totalWins.a}, ${c.b.name} ${c.totalWins.b}, ties ${c.totalWins.tie}` +
      (c.notComparable ? ` (${c.notComparable} not comparable, counted as ties)` : '') +
      `. Page: ${c.comparePageUrl}`,
  ];
  for (const r of c.shared) {
    const v = (x: number | null) => (x === null ? 'no value' : formatValue(x, r.unit));
    lines.push(
      `- ${r.title}: ${compareVerdict(r, c.a.name, c.b.name)} (${c.a.name} ${v(r.aValue)}, ${c.b.name} ${v(r.bValue)}).`,
    );
  }
  return lines.join('\n');
}

export function compareProvidersTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  return buildTool({
    name: 'compare_providers',
    title: 'Compare two providers head to head',
    description: [
      "Returns exactly what GET /api/compare/{a}/{b} serves: every benchmark where both providers appear, each side's p50 in the benchmark unit, the winner by the metric's direction, and totals.",
      'A row that the data cannot support (a side without data in the same window, an unresponsive side, two providers that count different kinds of things, or too few shared samples) is marked comparable=false with a reason and counts as a tie: say "not comparable", never quote a percentage for it.',
      "With a dimension (e.g. chain) only the benchmarks declaring it are rows, each under that filter; with date (a closed UTC day) the rows come from that day's frozen Stats and never change.",
      'On window benchmarks a side wins only when the paired sign test (significance) gives p < 0.05, the p50s differ by more than the margin, and most cycles favour it. A comparable row with winner "tie" and a reason (not-significant, within-margin, direction-disagrees) is a statistical tie: call it tied, never say either side is "ahead", whatever the two values. The text summary words each row this way.',
    ].join(' '),
    input: z.strictObject({
      a: slug,
      b: slug,
      date: z
        .string()
        .max(32)
        .optional()
        .describe(
          "A closed UTC day, YYYY-MM-DD: the rows of that day's frozen Stats, as GET /api/compare/{a}/{b}?date= serves them (default: live; no dimension with it).",
        ),
      ...dimensionArgs(publication.specs),
    }),
    output: compareSchema,
    async run(args) {
      const { a, b, date } = args;
      const filters = dimensionValues(args);
      const filtered = Object.values(filters).some((v) => v !== undefined);
      if (date !== undefined && filtered) {
        return toolError(
          'bad_request',
          'A dated compare is of the unfiltered Stats frozen with the day; drop the filters.',
        );
      }
      try {
        const r = await publication.compare(
          a,
          b,
          date !== undefined ? { date } : filtered ? { filters } : {},
        );
        if (!r.ok) return toolError(r.error, r.message);
        const json = JSON.parse(new TextDecoder().decode(r.served.body)) as Record<string, unknown>;
        const res = toolOk(json);
        res.content.push({ type: 'text', text: compareSummary(r.served.value) });
        return res;
      } catch (e) {
        return publicationFailure(
          e,
          publication.specs.map((s) => s.slug),
        );
      }
    },
  });
}
