import { providerName } from '../../core/providers.ts';
import type { BenchmarkSpec } from '../../core/spec-schema.ts';

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'best',
  'by',
  'for',
  'how',
  'in',
  'is',
  'most',
  'of',
  'on',
  'or',
  'the',
  'to',
  'top',
  'vs',
  'what',
  'which',
  'who',
  'with',
]);

export function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function queryTokens(q: string): string[] {
  return [...new Set(words(q).filter((w) => !STOP_WORDS.has(w)))];
}

/** Words of one benchmark, by weight class; computed once per spec. */
export interface SearchIndexEntry {
  readonly slug: ReadonlySet<string>;
  readonly title: ReadonlySet<string>;
  /** Metric, category, unit, provider names and slugs. */
  readonly rest: ReadonlySet<string>;
  readonly all: readonly string[];
}

export function indexSpec(spec: BenchmarkSpec): SearchIndexEntry {
  const slug = new Set(words(spec.slug));
  const title = new Set(words(spec.title));
  const rest = new Set(
    words(
      [
        spec.metric,
        spec.category,
        spec.unit,
        ...spec.providers.flatMap((p) => [p.slug, providerName(p.slug)]),
      ].join(' '),
    ),
  );
  return { slug, title, rest, all: [...new Set([...slug, ...title, ...rest])] };
}

/**
 * Deterministic relevance: per query token, +4 for a slug word, +2 for a title word, +1 for a
 * metric/category/provider word; a token matching none of them exactly scores 0.5 if it prefixes
 * some word ("network" → "networks"). The sum is divided by the token count; 0 means no match.
 */
export function score(entry: SearchIndexEntry, tokens: readonly string[]): number {
  if (tokens.length === 0) return 0;
  let total = 0;
  for (const t of tokens) {
    let s = 0;
    if (entry.slug.has(t)) s += 4;
    if (entry.title.has(t)) s += 2;
    if (entry.rest.has(t)) s += 1;
    if (s === 0 && t.length >= 3 && entry.all.some((w) => w.startsWith(t))) s = 0.5;
    total += s;
  }
  return total / tokens.length;
}
