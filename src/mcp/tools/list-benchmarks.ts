import { z } from 'zod';
import { type CitableRow, simulatedSchema } from '../../core/api-schemas.ts';
import type { benchmarkSpecSchema } from '../../core/spec-schema.ts';
import { type BuiltTool, buildTool, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { publicationFailure } from './errors.ts';
import { indexSpec, queryTokens, type SearchIndexEntry, score } from './search.ts';

type Category = (typeof benchmarkSpecSchema.shape.category.options)[number];

/** The input schema names only the categories some benchmark has (an agent cannot pick an empty one). */
function inputFor(categories: readonly [Category, ...Category[]]) {
  return z.strictObject({
    query: z
      .string()
      .max(200)
      .optional()
      .describe(
        'Words to look for in slug, title, metric, category and provider names, e.g. "trade coverage" or "mobula". Omit to list everything.',
      ),
    category: z.enum(categories).optional().describe('Only benchmarks of this category.'),
  });
}

const row = z.object({
  slug: z.string().describe('Pass to get_benchmark.'),
  title: z.string(),
  category: z.string(),
  metric: z.string(),
  unit: z.string().describe('Unit of value: ms, pct, count or usd.'),
  status: z.enum(['live', 'stale', 'draft']),
  value: z
    .number()
    .nullable()
    .describe("The leader's current value, in unit; null while a draft has no data."),
  leader: z.object({ name: z.string(), slug: z.string() }).nullable(),
  headline: z.string().describe('One citable sentence.'),
  url: z.string().describe('Public page to cite.'),
  asOf: z.string().nullable().describe('ISO time of the newest measurement.'),
});

const output = z.object({
  count: z.int().describe('Rows returned.'),
  total: z.int().describe('Benchmarks published in all.'),
  benchmarks: z.array(row),
  simulated: simulatedSchema,
});

type Row = z.infer<typeof row>;

function compact(r: CitableRow): Row {
  return {
    slug: r.slug,
    title: r.title,
    category: r.category,
    metric: r.metric,
    unit: r.unit,
    status: r.status,
    value: r.value,
    leader: r.leader ? { name: r.leader.name, slug: r.leader.slug } : null,
    headline: r.headline,
    url: r.url,
    asOf: r.asOf,
  };
}

export function listBenchmarksTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  const slugs = publication.specs.map((s) => s.slug);
  const index = new Map<string, SearchIndexEntry>(publication.specs.map((s) => [s.slug, indexSpec(s)]));
  const present = [...new Set(publication.specs.map((s) => s.category))].sort();
  const categories = (present.length ? present : ['Aggregators']) as [Category, ...Category[]];
  const input = inputFor(categories);
  return buildTool({
    name: 'list_benchmarks',
    title: 'List Citebench benchmarks',
    description: [
      `Lists the published benchmarks of crypto infrastructure providers (${publication.specs.length} benchmarks; categories: ${categories.join(', ')}).`,
      'Call this first for discovery questions ("which benchmarks cover trade data?", "who leads network coverage?").',
      'Each row gives slug, title, category, metric, unit, status, the current leading value and leader, a citable headline, the page url and asOf.',
      'Filter with `query` (free words, matched against slug, title, metric and provider names; results are ranked by relevance) and/or `category`.',
      'Then call get_benchmark with a slug for full rankings, sparkline, methodology and a paste-ready quote.',
    ].join(' '),
    input,
    output,
    async run({ query, category }) {
      let rows: CitableRow[];
      let simulated = false;
      try {
        const idx = (await publication.citable()).value;
        rows = idx.benchmarks;
        simulated = idx.site.simulated === true;
      } catch (e) {
        return publicationFailure(e, slugs);
      }
      const total = rows.length;
      if (category) rows = rows.filter((r) => r.category === category);
      const tokens = query ? queryTokens(query) : [];
      if (tokens.length > 0) {
        rows = rows
          .map((r) => ({
            r,
            s: index.get(r.slug) ? score(index.get(r.slug) as SearchIndexEntry, tokens) : 0,
          }))
          .filter((x) => x.s > 0)
          .sort((a, b) => b.s - a.s || (a.r.slug < b.r.slug ? -1 : a.r.slug > b.r.slug ? 1 : 0))
          .map((x) => x.r);
      }
      const benchmarks = rows.map(compact);
      return toolOk({
        count: benchmarks.length,
        total,
        benchmarks,
        ...(simulated ? { simulated: true } : {}),
      });
    },
  });
}
