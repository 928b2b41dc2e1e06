import { z } from 'zod';
import { seriesSchema } from '../../core/api-schemas.ts';
import { SERIES_RANGES } from '../../core/series.ts';
import type { BenchmarkSpec } from '../../core/spec-schema.ts';
import { resolveSeriesRequest } from '../../publication/series-request.ts';
import { type BuiltTool, buildTool, type ToolResult, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { declaredDimensions, dimensionArgs, dimensionValues } from './dimension-args.ts';
import { publicationFailure } from './errors.ts';

/** Closed, as every tool's: an argument it does not take is a tool error naming those it does. */
const inputOf = (specs: readonly BenchmarkSpec[]) =>
  z.strictObject({
    slug: z.string().min(1).max(100).describe('Benchmark slug, as list_benchmarks returns it.'),
    range: z
      .string()
      .max(8)
      .optional()
      .describe(`One of ${SERIES_RANGES.join(', ')} (default 24h).`),
    ...dimensionArgs(specs),
    providers: z
      .string()
      .max(512)
      .optional()
      .describe('Comma-separated provider slugs to return, e.g. "mobula,codex" (default: every provider).'),
  });

const decoder = new TextDecoder();
/** Cached series bodies are parsed and wrapped once each (as get_benchmark does for Stats). */
const results = new WeakMap<Uint8Array, ToolResult>();

export function getSeriesTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  const slugs = publication.specs.map((s) => s.slug);
  return buildTool({
    name: 'get_series',
    title: 'Get the history of a Citebench benchmark',
    description: [
      "Returns exactly what GET /api/series/{slug} serves: each provider's value on a fixed time grid (range 24h: 20-minute steps, 7d: 2 h, 30d: 6 h, 90d: 1 day), index-aligned with `timestamps` (epoch ms).",
      "A value is what the benchmark's Stat would have published at that instant with the same filters; null where it had none (never invented). The last point is the current value.",
      `Optional filters as in get_benchmark (${
        declaredDimensions(publication.specs)
          .map((d) => d.name)
          .join(', ') || 'none declared'
      }) and providers="a,b" to narrow.`,
    ].join(' '),
    input: inputOf(publication.specs),
    output: seriesSchema,
    async run(args) {
      if (!publication.series) return toolError('unavailable', 'Series are not available on this server.');
      try {
        // Inside: region values the store could not read are its failure (engine_unavailable).
        const r = resolveSeriesRequest(publication, args.slug, {
          range: args.range,
          providers: args.providers,
          ...dimensionValues(args),
        });
        if (!r.ok) return toolError(r.error, r.message);
        const served = await publication.series(args.slug, r.filters, r.range, r.providers);
        let res = results.get(served.body);
        if (!res) {
          const text = decoder.decode(served.body);
          res = toolOk(JSON.parse(text) as Record<string, unknown>, text);
          results.set(served.body, res);
        }
        return res;
      } catch (e) {
        return publicationFailure(e, slugs);
      }
    },
  });
}
