import { PROVIDERS, providerName } from '../core/providers.ts';
import { type BenchmarkSpec, SLUG_RE } from '../core/spec-schema.ts';

export type ComparePair =
  | { ok: true; shared: readonly BenchmarkSpec[] }
  | { ok: false; status: 400 | 404; error: string; message: string };

/**
 * Checks the two provider slugs of GET /api/compare/{a}/{b} and finds the benchmarks measuring
 * both. `measured`: every provider slug some spec measures.
 */
export function checkComparePair(
  a: string,
  b: string,
  specs: readonly BenchmarkSpec[],
  measured: ReadonlySet<string>,
): ComparePair {
  for (const s of [a, b]) {
    if (!SLUG_RE.test(s)) {
      return { ok: false, status: 400, error: 'bad_slug', message: `"${s}" is not a valid provider slug.` };
    }
  }
  if (a === b) {
    return { ok: false, status: 400, error: 'same_provider', message: 'Compare two different providers.' };
  }
  for (const s of [a, b]) {
    if (!measured.has(s) || !PROVIDERS.has(s)) {
      return {
        ok: false,
        status: 404,
        error: 'unknown_provider',
        message: `Unknown provider "${s}". Known: ${[...measured].sort().join(', ')}.`,
      };
    }
  }
  const shared = specs.filter(
    (s) => s.providers.some((p) => p.slug === a) && s.providers.some((p) => p.slug === b),
  );
  if (shared.length === 0) {
    return {
      ok: false,
      status: 404,
      error: 'no_shared_benchmark',
      message: `${providerName(a)} and ${providerName(b)} do not appear in a common benchmark.`,
    };
  }
  return { ok: true, shared };
}
