import { z } from 'zod';
import { providerProfileSchema } from '../../core/api-schemas.ts';
import { SLUG_RE } from '../../core/spec-schema.ts';
import { describeViolation } from '../../http/route-kit.ts';
import { type BuiltTool, buildTool, type ToolResult, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';
import { publicationFailure } from './errors.ts';

const input = z.strictObject({
  slug: z.string().min(1).max(100).describe('Provider slug, e.g. "mobula" (the rankings\' slug).'),
  date: z
    .string()
    .max(32)
    .optional()
    .describe(
      "A closed UTC day, YYYY-MM-DD: the profile built from that day's frozen Stats (default: live).",
    ),
});

const decoder = new TextDecoder();
/** Profile bodies are cached by the publication; each distinct body is parsed and wrapped once. */
const results = new WeakMap<Uint8Array, ToolResult>();

export function getProviderTool(ctx: ToolContext): BuiltTool {
  const { publication } = ctx;
  return buildTool({
    name: 'get_provider',
    title: "Get one provider's profile",
    description: [
      "Returns exactly what GET /api/providers/{slug} serves: the provider on every benchmark listing it, from each benchmark's unfiltered Stat: rank (or why it has none: unranked), p50 value in the benchmark unit with its 95% interval (ci95), tiedWithLeader, successRate, sampleSize,",
      'and weekAgo: its row in the Stat frozen 7 days earlier (null when that day has no snapshot or no row), with change = value − weekAgo.value. Links point at the benchmark page, its API, the raw measurements and the head-to-head with the leader.',
      "With date (a closed UTC day) the profile is built from that day's frozen Stats and never changes. A row with tiedWithLeader true is statistically tied with the leader: never say the leader is ahead of it.",
    ].join(' '),
    input,
    output: providerProfileSchema,
    async run({ slug, date }) {
      if (!publication.providerProfile) return toolError('unavailable', 'Profiles are not available here.');
      // The HTTP route's order: a malformed slug, then an unknown provider, then the date.
      if (!SLUG_RE.test(slug)) {
        const d = describeViolation({ kind: 'path', name: 'slug', value: slug });
        return toolError(d.error, d.message);
      }
      try {
        const r = await publication.providerProfile(slug, date ?? null);
        if (r.kind === 'unknown_provider') return toolError('unknown_provider', r.message);
        if (r.kind === 'bad_date') return toolError('bad_date', r.message);
        if (r.kind === 'today' || r.kind === 'not_frozen') return toolError('not_frozen', r.message);
        let res = results.get(r.served.body);
        if (!res) {
          const text = decoder.decode(r.served.body);
          res = toolOk(JSON.parse(text) as Record<string, unknown>, text);
          results.set(r.served.body, res);
        }
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
