import { benchmarkMarkdown } from '../core/markdown.ts';
import type { PublicationApi } from '../publication/types.ts';

export const RESOURCE_PREFIX = 'citebench://benchmark/';

export interface ResourceEntry {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: 'text/markdown';
}

/** resources/list is static: one entry per spec, computed once. */
export function resourceList(publication: PublicationApi): ResourceEntry[] {
  return publication.specs.map((s) => ({
    uri: `${RESOURCE_PREFIX}${s.slug}`,
    name: s.slug,
    title: `${s.title} · ${s.category}`,
    description: s.subtitle,
    mimeType: 'text/markdown',
  }));
}

export const resourceTemplate = {
  uriTemplate: `${RESOURCE_PREFIX}{slug}`,
  name: 'benchmark',
  title: 'Citebench benchmark (Markdown)',
  description:
    'One benchmark as Markdown: headline, rankings, methodology and citation links. {slug} as in list_benchmarks.',
  mimeType: 'text/markdown',
} as const;

/** The benchmark's Markdown section, or null for a URI that names no benchmark. */
export async function readBenchmarkResource(
  publication: PublicationApi,
  uri: string,
): Promise<{ uri: string; mimeType: 'text/markdown'; text: string } | null> {
  if (!uri.startsWith(RESOURCE_PREFIX)) return null;
  const slug = uri.slice(RESOURCE_PREFIX.length);
  if (!publication.spec(slug)) return null;
  const served = await publication.stat(slug, null);
  return { uri, mimeType: 'text/markdown', text: benchmarkMarkdown(served.value) };
}
