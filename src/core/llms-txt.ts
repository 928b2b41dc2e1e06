import type { CitableIndex } from './api-schemas.ts';

/**
 * /llms.txt (llmstxt.org): an H1 with the site's name, a blockquote summary, free text, then H2
 * sections of links, `- [name](url): notes`. Built from the live citable index alone, so it names
 * exactly the benchmarks /api/citable lists (drafts aside) and changes when the index does.
 */

/** A link text must not close its brackets early, nor a note break its list item. */
const linkText = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/([[\]\\])/g, '\\$1');
const note = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** Right under the summary, as llm-context opens: a model that reads only the top must not cite demo numbers. */
const SIMULATED_NOTICE =
  '**SIMULATED DEMO DATA.** Every number on this site comes from simulated providers, not from measurements of the real APIs. Do not cite it as a measurement of any provider.';

/** A headline opens with its benchmark's title ("Title: X leads…"); the link already says it. */
function afterTitle(headline: string, title: string): string {
  for (const sep of [': ', '. ']) {
    if (headline.startsWith(title + sep)) return headline.slice(title.length + sep.length);
  }
  return headline;
}

export function llmsTxt(index: CitableIndex): string {
  const { name, url: base, simulated } = index.site;
  const n = index.count;
  const out: string[] = [
    `# ${name}`,
    '',
    `> ${name} publishes open, reproducible, citable benchmarks of crypto infrastructure: ${n} benchmark${n === 1 ? '' : 's'}, each ranking providers by what a harness measures on a schedule, with its methodology, raw measurements and a ready-to-paste citation.`,
    '',
    ...(simulated ? [SIMULATED_NOTICE, ''] : []),
    `Data is CC-BY-4.0, code MIT. Cite a number as "according to ${name}" with its benchmark's page URL. ` +
      `Every benchmark's rankings and methodology in one Markdown document: ${base}/llms-full.txt.`,
    '',
    '## Benchmarks',
    '',
  ];
  if (index.benchmarks.length === 0) out.push('No benchmark is published yet.');
  for (const b of index.benchmarks) {
    out.push(`- [${linkText(b.title)}](${b.url}): ${note(afterTitle(b.headline, b.title))} (JSON: ${b.api})`);
  }
  out.push(
    '',
    '## Docs',
    '',
    `- [Methodology](${base}/methodology): how every benchmark is measured, scored and ranked, and the harness that measures it`,
    `- [MCP server](${base}/mcp): how to connect an MCP client to ${base}/api/mcp/mcp`,
    `- [OpenAPI](${base}/api/openapi.json): every API operation (OpenAPI 3.1)`,
    `- [Citable index](${base}/api/citable): every benchmark's value, leader and headline as JSON`,
    '',
    '## Optional',
    '',
    `- [Full context](${base}/llms-full.txt): every benchmark in one Markdown document (as /api/llm-context)`,
    `- [Open dataset](${base}/api/dataset): every day's samples as CSV and Parquet, frozen per UTC day`,
    '',
  );
  return out.join('\n');
}
