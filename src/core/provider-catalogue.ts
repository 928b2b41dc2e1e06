import { z } from 'zod';
import { PER_USER_RPC, type ProviderInfo } from './providers.ts';
import { SLUG_RE, SpecError } from './spec-schema.ts';

const providerInfo = z.strictObject({
  slug: z.string().regex(SLUG_RE, 'must match ^[a-z0-9][a-z0-9-]{0,79}$'),
  name: z.string().min(1).max(80),
  website: z.url(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an environment variable name such as CODEX_API_KEY')
    .optional(),
  keyRequired: z.boolean(),
  color: z.string().regex(/^#[0-9a-f]{6}$/, 'must be a lower-case hex color such as #4e79a7'),
  families: z.array(z.string().regex(SLUG_RE)),
  rpc: z
    .record(
      z.string().regex(/^[a-z0-9-]{1,40}$/, 'must be a chain such as ethereum'),
      z.union([
        z.literal(PER_USER_RPC),
        z
          .url()
          .refine((u) => u.startsWith('https://'), 'must be an https URL template or per-user')
          // The key goes in by substitution only; a literal key in the catalogue would be published.
          .refine((u) => !/\{(?!key\})[^}]*\}/.test(u), 'the only placeholder is {key}'),
      ]),
    )
    .optional(),
});

const catalogueSchema = z.strictObject({ providers: z.array(providerInfo).min(1) });

/**
 * Validates the provider catalogue (benchmarks/providers.yml): every field of every provider, unique
 * slugs and colors. Every problem is reported, one line each, naming the file and the field.
 */
export function parseProviderCatalogue(file: string, data: unknown): ProviderInfo[] {
  const res = catalogueSchema.safeParse(data);
  const lines: string[] = [];
  if (!res.success) {
    for (const iss of res.error.issues) {
      const field = iss.path.length ? iss.path.map(String).join('.') : '(root)';
      lines.push(`${file}: field "${field}": ${iss.message}`);
    }
    throw new SpecError(lines.join('\n'));
  }
  const slugs = new Set<string>();
  const colors = new Map<string, string>();
  res.data.providers.forEach((p, i) => {
    if (slugs.has(p.slug)) lines.push(`${file}: field "providers.${i}.slug": duplicate provider "${p.slug}"`);
    slugs.add(p.slug);
    const other = colors.get(p.color);
    // A chart tells providers apart by color alone.
    if (other) lines.push(`${file}: field "providers.${i}.color": ${p.color} is already ${other}'s`);
    colors.set(p.color, p.slug);
    for (const [chain, url] of Object.entries(p.rpc ?? {})) {
      if (url.includes('{key}') && p.apiKeyEnv === undefined) {
        lines.push(`${file}: field "providers.${i}.rpc.${chain}": {key} needs apiKeyEnv`);
      }
    }
  });
  if (lines.length > 0) throw new SpecError(lines.join('\n'));
  return res.data.providers.map((p) => ({
    slug: p.slug,
    name: p.name,
    website: p.website,
    ...(p.apiKeyEnv !== undefined ? { apiKeyEnv: p.apiKeyEnv } : {}),
    keyRequired: p.keyRequired,
    color: p.color,
    families: p.families,
    ...(p.rpc !== undefined ? { rpc: p.rpc } : {}),
  }));
}
