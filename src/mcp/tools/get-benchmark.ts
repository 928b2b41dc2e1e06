import { z } from 'zod';
import { statSchema } from '../../core/api-schemas.ts';
import { type BuiltTool, buildTool, type ToolResult, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { publicationFailure } from './errors.ts';

const dim = (what: string) =>
  z
    .string()
    .max(64)
    .optional()
    .describe(`${what} Only for benchmarks that declare this dimension; "all" or omitted means every value.`);

const input = z.object({
  slug: z
    .string()
    .min(1)
    .max(100)
    .describe('Benchmark slug from list_benchmarks, e.g. "token-trade-coverage".'),
  chain: dim('Narrow to one chain, e.g. "solana".'),
  region: dim('Narrow to one measurement region.'),
  kind: dim('Narrow to one provider kind, e.g. "dex-index".'),
  venue: dim('Narrow to one venue.'),
});

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

export function getBenchmarkTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  const slugs = publication.specs.map((s) => s.slug);
  return buildTool({
    name: 'get_benchmark',
    title: 'Get one Citebench benchmark',
    description: [
      'Returns one benchmark exactly as GET /api/stat/{slug} serves it: current value and leader, rankings (every provider with p50/p90/p99/mean in the benchmark unit, successRate, sampleSize; best first),',
      'a 24-hour sparkline of the leader, a headline and a paste-ready quote, citations (plain, BibTeX, APA, RIS), methodology, source, pageUrl and asOf.',
      'Optionally narrow with a dimension the benchmark declares (its `dimensions` field lists them): chain (e.g. token-trade-coverage chain=solana|ethereum|bsc|base|stellar), region, kind (e.g. network-coverage kind=dex-index), venue.',
      'Cite the returned pageUrl and use `quote` as the attribution line. Unknown slugs or values return an error listing the valid choices.',
    ].join(' '),
    input,
    output: statSchema,
    async run({ slug, chain, region, kind, venue }) {
      if (!publication.spec(slug)) {
        return toolError(
          'unknown_benchmark',
          `Unknown benchmark "${slug}". Valid slugs: ${slugs.join(', ')}.`,
        );
      }
      const resolved = publication.resolveFilters(slug, { chain, region, kind, venue });
      if (!resolved.ok) return toolError(resolved.error, resolved.message);
      try {
        const served = await publication.stat(slug, resolved.filters);
        return resultFor(served.body);
      } catch (e) {
        return publicationFailure(e, slugs);
      }
    },
  });
}
