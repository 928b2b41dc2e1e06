/** Escapes text for HTML element content and double-quoted attributes. */
export function esc(s: string | number): string {
  return String(s)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** JSON for a <script type="application/ld+json"> block: `<` escaped so it cannot close the tag. */
export function jsonLd(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

const STYLE = `
:root{--ink:#15181e;--muted:#5b6472;--line:#e3e6eb;--bg:#fbfaf7;--accent:#2456d6}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:980px;margin:0 auto;padding:24px 20px 64px}
header.site{display:flex;justify-content:space-between;align-items:center;padding:12px 20px;border-bottom:1px solid var(--line);background:#fff}
header.site a{color:var(--ink);text-decoration:none;font-weight:700}nav a{margin-left:16px;font-weight:500!important;color:var(--muted)!important}
a{color:var(--accent)}h1{font-size:1.7rem;line-height:1.25;margin:.2em 0}h2{font-size:1.15rem;margin-top:2em}
.eyebrow{font:600 .78rem/1.4 ui-monospace,monospace;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.value{font-size:3rem;font-weight:800;margin:.1em 0}.muted{color:var(--muted)}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line)}th,td{padding:8px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:nth-child(2),td:nth-child(2){text-align:left;white-space:normal}th{font-size:.8rem;color:var(--muted);font-weight:600}
tr.unresponsive td{color:var(--muted)}
.quote{background:#fff;border:1px solid var(--line);border-left:4px solid var(--accent);padding:12px 14px}
button{font:inherit;padding:4px 10px;border:1px solid var(--line);background:#fff;border-radius:6px;cursor:pointer}
.chips a{display:inline-block;margin:0 6px 6px 0;padding:2px 10px;border:1px solid var(--line);border-radius:999px;text-decoration:none;background:#fff}
.chips a[aria-current]{background:var(--ink);color:#fff}
.card{background:#fff;border:1px solid var(--line);padding:16px;margin:12px 0;border-radius:8px}
footer{margin-top:48px;color:var(--muted);font-size:.85rem}
`;

export interface PageMeta {
  readonly title: string;
  readonly description: string;
  readonly url: string;
  readonly siteName: string;
  readonly image?: string;
  readonly jsonLd?: unknown;
}

/** The document shell: no external assets, Open Graph tags so a pasted link unfurls with the image. */
export function layout(meta: PageMeta, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(meta.title)} · ${esc(meta.siteName)}</title>
<meta name="description" content="${esc(meta.description)}">
<link rel="canonical" href="${esc(meta.url)}">
<meta property="og:title" content="${esc(meta.title)}">
<meta property="og:description" content="${esc(meta.description)}">
<meta property="og:url" content="${esc(meta.url)}">
<meta property="og:site_name" content="${esc(meta.siteName)}">
${meta.image ? `<meta property="og:image" content="${esc(meta.image)}"><meta name="twitter:card" content="summary_large_image">` : ''}
${meta.jsonLd ? `<script type="application/ld+json">${jsonLd(meta.jsonLd)}</script>` : ''}
<style>${STYLE}</style>
</head>
<body>
<header class="site"><a href="/">${esc(meta.siteName)}</a><nav><a href="/methodology">Methodology</a><a href="/api/citable">JSON</a><a href="/api/llm-context">For LLMs</a><a href="/mcp">MCP</a></nav></header>
<main>
${body}
<footer>Data CC-BY-4.0: cite the page URL. Code MIT. <a href="/api/openapi.json">OpenAPI</a></footer>
</main>
</body>
</html>
`;
}
