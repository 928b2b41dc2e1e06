import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { BenchmarkSpec } from './spec-schema.ts';

/**
 * The version of a benchmark's definition: sha256 (hex) of the canonical JSON of the parsed spec,
 * defaults applied. It hashes what the spec means, not how the YAML is written, so comments, key
 * order and quoting leave it alone; these are the per-spec bytes a freeze stores in `specs:{day}`.
 */
export function specHash(spec: BenchmarkSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

/** `{slug: sha256}` for a set of specs, keys sorted (the order of a canonical object). */
export function specHashes(specs: readonly BenchmarkSpec[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of [...specs].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)))
    out[s.slug] = specHash(s);
  return out;
}
