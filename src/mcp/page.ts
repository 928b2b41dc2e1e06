import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { layout } from '../pages/html.ts';

export function escapeHtml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export interface McpPageInput {
  readonly siteName: string;
  readonly baseUrl: string;
  readonly mcpUrl: string;
  readonly specs: readonly BenchmarkSpec[];
  readonly rateLimitPerMin: number;
  /** Simulated data: the page carries the banner like every other page. */
  readonly simulated?: boolean;
  /** The server's own tools/list entries: the page describes exactly what it exposes. */
  readonly tools: readonly ToolListing[];
}

/** What the page reads of a tools/list entry. */
export interface ToolListing {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: {
    readonly properties?: Readonly<Record<string, unknown>>;
    readonly required?: readonly string[];
  };
}

/** One card per tool: its name, title, arguments (required first) and the first sentence it says of itself. */
function toolCard(t: ToolListing): string {
  const e = escapeHtml;
  const required = new Set(t.inputSchema.required ?? []);
  const names = Object.keys(t.inputSchema.properties ?? {});
  const args = [...names.filter((n) => required.has(n)), ...names.filter((n) => !required.has(n))]
    .map((n) => `<code>${e(n)}</code>${required.has(n) ? '' : ' (optional)'}`)
    .join(', ');
  const first = /^(.*?[.:])(\s|$)/.exec(t.description ?? '')?.[1] ?? t.description ?? '';
  return `<div class="card" data-testid="tool-${e(t.name)}"><h3><code>${e(t.name)}</code></h3>
<p>${e(t.title ?? '')}</p>
<p>Arguments: ${args || 'none'}.</p>
<p class="muted">${e(first)}</p></div>`;
}

function snippet(id: string, title: string, note: string, code: string): string {
  return `<h3>${escapeHtml(title)}</h3>
<p class="muted">${note}</p>
<pre id="${id}">${escapeHtml(code)}</pre>
<p><button type="button" data-copy="${id}">Copy</button></p>`;
}

/** The /mcp install page; every interpolated value is escaped, no third-party assets (the site's own hashed stylesheet and script). */
export function renderMcpPage(p: McpPageInput): string {
  const url = p.mcpUrl;
  const example =
    p.specs.find((s) => s.dimensions.chain) ??
    p.specs.find((s) => Object.keys(s.dimensions).length > 0) ??
    p.specs[0] ??
    // No benchmark at all: the snippet still shows the call's shape.
    ({ slug: 'benchmark-slug' } as const);
  const exampleDims =
    'dimensions' in example
      ? Object.entries(example.dimensions).flatMap(([d, v]) =>
          v?.values[0] ? [[d, v.values[0].value] as const] : [],
        )
      : [];
  const callArgs: Record<string, string> = { slug: example.slug };
  for (const [d, v] of exampleDims.slice(0, 1)) callArgs[d] = v;
  const curlBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_benchmark', arguments: callArgs },
  });
  const e = escapeHtml;
  const count = p.specs.length;
  const titles = p.specs.map((s) => `<li><code>${e(s.slug)}</code>: ${e(s.title)}</li>`).join('\n');

  const body = `<p class="eyebrow">MCP server</p>
<h1>Use ${e(p.siteName)} from your AI assistant</h1>
<p>An MCP server lets an agent look up our ${count} citable benchmark${count === 1 ? '' : 's'} of crypto infrastructure, with rankings, methodology and a paste-ready quote, instead of guessing.</p>
<div class="url"><code id="mcp-url">${e(url)}</code><button type="button" data-copy="mcp-url">Copy URL</button></div>
<ul class="facts muted">
<li>Transport: Streamable HTTP, POST only (no SSE stream, no sessions)</li>
<li>Auth: none</li>
<li>Rate limit: ${e(String(p.rateLimitPerMin))} requests/min per IP</li>
<li>Benchmarks: ${count}</li>
</ul>

<h2>Install</h2>
${snippet('snip-claude-code', 'Claude Code', 'Run once in a terminal:', `claude mcp add --transport http citebench ${url}`)}
${snippet(
  'snip-claude-desktop',
  'Claude Desktop',
  'Settings → Connectors → <em>Add custom connector</em> with the URL above; or, through the <code>mcp-remote</code> bridge, add this to <code>claude_desktop_config.json</code> and restart:',
  JSON.stringify({ mcpServers: { citebench: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }, null, 2),
)}
${snippet(
  'snip-cursor',
  'Cursor',
  'Settings → MCP → Add server, or put this in <code>~/.cursor/mcp.json</code>:',
  JSON.stringify({ mcpServers: { citebench: { url } } }, null, 2),
)}
${snippet(
  'snip-vscode',
  'VS Code (Copilot agent mode)',
  'Put this in <code>.vscode/mcp.json</code>, or run <code>MCP: Add Server…</code> → HTTP:',
  JSON.stringify({ servers: { citebench: { type: 'http', url } } }, null, 2),
)}
${snippet(
  'snip-curl',
  'Any client, or curl',
  'Plain JSON-RPC over HTTP POST; no session or initialize needed for a one-off call. Batches are not accepted.',
  `curl -s ${url} \\\n  -H 'Content-Type: application/json' \\\n  -H 'Accept: application/json, text/event-stream' \\\n  -d '${curlBody}'`,
)}

<h2>What is exposed</h2>
<div class="grid">
${p.tools.map(toolCard).join('\n')}
<div class="card"><h3>Resources</h3>
<p><code>citebench://benchmark/{slug}</code>: each benchmark as Markdown.</p>
<p class="muted">${count} resource${count === 1 ? '' : 's'}.</p></div>
</div>

<h2>Benchmarks</h2>
<ul>
${titles}
</ul>

<h2>Open by design, safe by default</h2>
<p class="muted">Read-only tools; PromQL limited to the benchmark metrics with a time budget and a point cap; Host and Origin checked against DNS rebinding; per-IP rate limit; 64 KiB body cap; JSON-RPC batches rejected. Data licensed CC-BY-4.0: cite the page URL each answer carries.</p>
`;
  // The same layout, banner and copy buttons as every other page.
  return layout(
    {
      title: `${p.siteName} MCP server: use the benchmarks from your AI assistant`,
      description: `Connect Claude, Cursor or VS Code to ${p.siteName}'s MCP server at ${url}.`,
      url: `${p.baseUrl}/mcp`,
      siteName: p.siteName,
      simulated: p.simulated === true,
      section: 'mcp',
    },
    body,
  );
}
