import { createHash } from 'node:crypto';

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

/** The site mark, inline (no request): three rising bars. Also served at /favicon.ico. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fd1"/><rect x="7" y="17" width="4.5" height="8" rx="1.5" fill="#fff"/><rect x="13.75" y="12" width="4.5" height="13" rx="1.5" fill="#fff"/><rect x="20.5" y="7" width="4.5" height="18" rx="1.5" fill="#fff"/></svg>';

const FAVICON_HREF = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/**
 * One stylesheet for every page. Phones: nothing is wider than the viewport (tables scroll inside
 * their own box, SVGs scale to their container, long words and URLs wrap).
 */
const STYLE = `
:root{--ink:#14171d;--body:#2a303a;--muted:#5d6675;--line:#e4e7ec;--soft:#f3f5f8;--bg:#fbfbfd;--card:#fff;--accent:#1f4fd1;--accent-soft:#e8eefc;--good:#127a48;--warn:#8a4b00;--warn-bg:#fff4e0;--sim:#b42318;--sim-bg:#fdecea}
@media (prefers-color-scheme:dark){:root{color-scheme:dark;--ink:#f2f4f8;--body:#d5dae3;--muted:#9aa3b2;--line:#2c3340;--soft:#1c222c;--bg:#10141a;--card:#161b23;--accent:#7ea2ff;--accent-soft:#1c2742;--good:#4ccf8e;--warn:#f0b35a;--warn-bg:#2e2414;--sim:#ff8a80;--sim-bg:#3a1714}.chips a[aria-current]{color:var(--bg)}}
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--body);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent);text-underline-offset:2px}h1,h2,h3{color:var(--ink);overflow-wrap:normal;word-break:normal}
h1{font-size:clamp(1.45rem,4.5vw,2rem);line-height:1.2;margin:.15em 0 .3em;letter-spacing:-.01em}h2{font-size:1.2rem;margin:2.2em 0 .6em}h3{font-size:1rem;margin:1.2em 0 .4em}
code,pre{font:13.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.top{position:sticky;top:0;z-index:5;background:rgba(255,255,255,.94);backdrop-filter:blur(6px);border-bottom:1px solid var(--line)}
.top-in{max-width:1080px;margin:0 auto;padding:10px 20px;display:flex;gap:10px 18px;align-items:center;flex-wrap:wrap}
.brand{display:flex;align-items:center;gap:8px;color:var(--ink);font-weight:800;text-decoration:none;font-size:1.05rem}.brand svg{display:block}
.top nav{display:flex;gap:4px 14px;flex-wrap:wrap;font-size:.92rem}.top nav a{color:var(--muted);text-decoration:none}.top nav a:hover{color:var(--accent)}
.search{position:relative;margin-left:auto;flex:1 1 220px;max-width:340px}
.search input{width:100%;font:inherit;font-size:.92rem;padding:6px 34px 6px 10px;border:1px solid var(--line);border-radius:8px;background:var(--soft)}
.search kbd{position:absolute;right:8px;top:6px;font:12px ui-monospace,monospace;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 5px;background:var(--card)}
.search ul{position:absolute;left:0;right:0;top:calc(100% + 4px);margin:0;padding:4px;list-style:none;background:var(--card);border:1px solid var(--line);border-radius:8px;box-shadow:0 8px 24px rgba(20,23,29,.12)}
.search li a{display:block;padding:6px 8px;border-radius:6px;text-decoration:none;color:var(--ink)}.search li a:hover,.search li a:focus,.search li a.on{background:var(--accent-soft)}
.search li small{display:block;color:var(--muted)}
.sim{background:var(--sim-bg);color:var(--sim);border-bottom:1px solid #f5c2bd}.sim p{max-width:1080px;margin:0 auto;padding:8px 20px;font-size:.92rem}
main{max-width:1080px;margin:0 auto;padding:22px 20px 64px}
.eyebrow{font:600 .75rem/1.4 ui-monospace,monospace;letter-spacing:.08em;text-transform:uppercase;color:var(--muted);margin:0}
.muted{color:var(--muted)}.small{font-size:.88rem}
.badge{display:inline-block;font:700 .7rem/1.6 ui-monospace,monospace;letter-spacing:.06em;text-transform:uppercase;padding:0 7px;border-radius:4px;vertical-align:middle;background:var(--soft);color:var(--muted)}
.badge.live{background:#e3f5ec;color:var(--good)}.badge.stale{background:var(--warn-bg);color:var(--warn)}.badge.draft{background:var(--warn-bg);color:var(--warn)}
.toc ol{columns:2 18rem;margin:8px 0 18px;padding-left:1.4em;font-size:.92rem}.toc li{break-inside:avoid}
.badge.frozen{background:var(--accent-soft);color:var(--accent)}.frozenbox{border-color:var(--accent);background:var(--accent-soft)}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px 18px;margin:14px 0}
.hero{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.3fr);gap:18px;align-items:center}
@media (max-width:720px){.hero{grid-template-columns:minmax(0,1fr)}}
.value{font-size:clamp(2.1rem,7vw,3rem);font-weight:800;color:var(--ink);line-height:1.1;margin:.1em 0;letter-spacing:-.02em}
.value small{font-size:.9rem;font-weight:600;color:var(--muted);letter-spacing:0;margin-left:6px}
svg.spark{display:block;width:100%;height:auto;max-width:100%}
.wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:10px;background:var(--card)}
table{width:100%;border-collapse:collapse;font-size:.93rem}th,td{padding:8px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;overflow-wrap:normal}
.breaks td{white-space:normal;word-break:break-all;text-align:left}
tr:last-child td{border-bottom:0}th{font-size:.76rem;color:var(--muted);font-weight:600;background:var(--soft);text-align:right}
th.l,td.l{text-align:left}td.name{text-align:left;white-space:normal;min-width:9em}tr.off td{color:var(--muted)}
@media (max-width:520px){td.name{min-width:7em}th,td{padding:8px 7px}th{white-space:normal}}
.bar{display:inline-block;vertical-align:middle;height:8px;border-radius:4px;background:var(--accent);opacity:.8}
.barcell{min-width:110px;text-align:left}.barcell .bar{max-width:100%}
.sub{display:block;font-size:.78rem;font-weight:400;color:var(--muted)}.badge.tie{background:var(--accent-soft);color:var(--accent)}
td.best{font-weight:700;color:var(--good)}td.best::after{content:" ★";font-size:.8em}
.chips{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}
.chips a{padding:2px 11px;border:1px solid var(--line);border-radius:999px;text-decoration:none;background:var(--card);font-size:.9rem}
.chips a[aria-current]{background:var(--ink);border-color:var(--ink);color:#fff}
.quote{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--accent);padding:12px 14px;border-radius:6px;margin:8px 0}
.notes p{margin:6px 0}.draftbox{background:var(--warn-bg);border:1px solid #f1d39f;color:var(--warn);border-radius:10px;padding:12px 16px}
button{font:inherit;font-size:.88rem;padding:5px 12px;border:1px solid var(--line);background:var(--card);border-radius:7px;cursor:pointer;color:var(--ink)}button:hover{border-color:var(--accent)}
.actions{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}
.board{display:grid;gap:14px}
.row{display:grid;grid-template-columns:minmax(0,1.2fr) minmax(0,1fr) minmax(0,.9fr);gap:16px;align-items:center}
@media (max-width:820px){.row{grid-template-columns:minmax(0,1fr)}}
.row h2{margin:.1em 0 .2em;font-size:1.12rem}.row h2 a{color:var(--ink);text-decoration:none}.row h2 a:hover{color:var(--accent)}
.tops{list-style:none;margin:0;padding:0;font-size:.88rem;display:grid;grid-template-columns:minmax(0,7.5em) minmax(0,1fr) auto;gap:6px 8px;align-items:center}
.tops li{display:grid;grid-column:1/-1;grid-template-columns:subgrid;align-items:center}.tops li>span:last-child{text-align:right}
.tops li span:first-child{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
img.og{display:block;width:100%;max-width:600px;height:auto;border:1px solid var(--line);border-radius:8px}
pre{margin:8px 0 0;padding:12px 14px;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow-x:auto;white-space:pre}
.url{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:16px 0}.url code{padding:8px 10px;background:var(--card);border:1px solid var(--line);border-radius:8px;word-break:break-all}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(240px,100%),1fr));gap:12px}.grid .card{margin:0}
.facts{margin:0;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:4px 18px}
dl dt{margin-top:1em;color:var(--ink)}dl dd{margin:.2em 0 0}
footer{max-width:1080px;margin:0 auto;padding:24px 20px 40px;color:var(--muted);font-size:.85rem;border-top:1px solid var(--line)}
`;

/**
 * Client-side behaviour, shared by every page and small: copy buttons, relative times (against the
 * service's now from /api/freshness, so the demo clock's at DEMO_SPEED, not the browser's), and the
 * search box ("/" focuses it) over the live index and /api/search/featured, fetched on first use.
 * The index names only each leader, so each benchmark's Stat is fetched too (cached answers, once
 * per page): a provider is found wherever it is ranked, not only where it leads. Its names are not
 * written into the page, so a page's bytes never depend on the other benchmarks.
 */
const SCRIPT = `
(function(){
document.querySelectorAll('button[data-copy]').forEach(function(b){
  b.addEventListener('click',function(){
    var el=document.getElementById(b.getAttribute('data-copy'));if(!el)return;
    var label=b.textContent;
    navigator.clipboard.writeText(el.textContent.trim()).then(function(){b.textContent='Copied';setTimeout(function(){b.textContent=label},2000)},function(){b.textContent='Select and copy'});
  });
});
function ago(t,now){var m=Math.round((now-Date.parse(t))/60000);if(!(m>=0))return null;if(m<1)return 'just now';if(m<60)return m+' min ago';var h=Math.round(m/60);return h<48?h+' h ago':Math.round(h/24)+' days ago'}
var times=document.querySelectorAll('time[data-ago]');
function ages(now){times.forEach(function(t){var a=ago(t.getAttribute('datetime'),now);if(a)t.textContent=a})}
if(times.length)fetch('/api/freshness').then(function(r){return r.json()}).then(function(f){ages(typeof f.now==='number'?f.now:Date.now())},function(){ages(Date.now())});
var box=document.getElementById('q'),list=document.getElementById('q-results'),items=null,loading=null;
if(!box)return;
function names(b){return fetch(new URL(b.api).pathname).then(function(r){return r.ok?r.json():{}}).then(function(s){return (s.rankings||[]).map(function(r){return r.name+' '+r.slug}).join(' ')},function(){return ''})}
function load(){if(loading)return loading;loading=Promise.all([fetch('/api/citable').then(function(r){return r.json()}),fetch('/api/search/featured').then(function(r){return r.json()}).catch(function(){return {trending:[]}})]).then(function(a){
  var trend={};(a[1].trending||[]).forEach(function(c){trend[c.slug]=c.change24h});
  return Promise.all(a[0].benchmarks.map(names)).then(function(n){
  items=a[0].benchmarks.map(function(b,k){return {t:b.title,u:new URL(b.url).pathname,s:(b.title+' '+b.metric+' '+b.category+' '+b.slug+' '+(b.leader?b.leader.name:'')+' '+n[k]).toLowerCase(),d:b.leader?b.leader.name+' leads':b.status,m:trend[b.slug]}});
  });
});return loading}
function show(){var q=box.value.trim().toLowerCase();list.innerHTML='';if(!items||!q){list.hidden=true;return}
  var words=q.split(/\\s+/),hits=items.filter(function(i){return words.every(function(w){return i.s.indexOf(w)>=0})}).slice(0,8);
  if(!hits.length){var li=document.createElement('li');li.className='muted';li.style.padding='6px 8px';li.textContent='No benchmark matches';list.appendChild(li)}
  hits.forEach(function(h,k){var li=document.createElement('li'),a=document.createElement('a');a.href=h.u;a.textContent=h.t;if(k===0)a.className='on';var s=document.createElement('small');s.textContent=h.d+(h.m&&h.m.pct!=null?' · moved '+h.m.pct.toFixed(1)+'% in 24 h':'');a.appendChild(s);li.appendChild(a);list.appendChild(li)});
  list.hidden=false}
box.addEventListener('focus',function(){load().then(show)});
box.addEventListener('input',function(){load().then(show)});
box.addEventListener('keydown',function(e){if(e.key==='Escape'){box.value='';show();box.blur()}else if(e.key==='Enter'){var a=list.querySelector('a');if(a){e.preventDefault();location.href=a.href}}});
document.addEventListener('keydown',function(e){var t=e.target;if(e.key==='/'&&!(t&&(t.tagName==='INPUT'||t.tagName==='TEXTAREA'||t.isContentEditable))){e.preventDefault();box.focus()}});
document.addEventListener('click',function(e){if(!e.target.closest||!e.target.closest('.search'))list.hidden=true});
})();
`;

export interface PageMeta {
  readonly title: string;
  readonly description: string;
  readonly url: string;
  readonly siteName: string;
  readonly image?: string;
  readonly jsonLd?: unknown;
  /** Simulated data: every page shows the banner, so no screenshot passes for a measurement. */
  readonly simulated?: boolean;
  /** The nav entry of this page, marked aria-current. */
  readonly section?: 'home' | 'methodology' | 'mcp';
}

/** The banner every page of a simulated deployment carries, right under the header. */
export const SIMULATED_BANNER =
  'Simulated demo data: every number on this site comes from simulated providers, not from measurements of the real APIs. Do not cite it as a result.';

function navLink(href: string, label: string, current: boolean): string {
  return `<a href="${href}"${current ? ' aria-current="page"' : ''}>${label}</a>`;
}

/** A file's name that changes with its content, so it can be cached forever. */
const hashed = (name: string, ext: string, body: string) =>
  `/assets/${name}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

export const STYLE_HREF = hashed('site', 'css', STYLE);
export const SCRIPT_HREF = hashed('site', 'js', SCRIPT);

/**
 * The stylesheet and the script every page uses, served as files named by their content hash
 * (`immutable`): inline they were 10.7 kB of every page (41% of a benchmark page), which bounded
 * how fast pages could be served (issue 28 targets ≥ 0.8× of /api/stat's req/s); as files a
 * browser fetches them once.
 */
export const ASSETS: ReadonlyMap<string, { readonly body: string; readonly contentType: string }> = new Map([
  [STYLE_HREF, { body: STYLE, contentType: 'text/css; charset=utf-8' }],
  [SCRIPT_HREF, { body: SCRIPT, contentType: 'text/javascript; charset=utf-8' }],
]);

/** The document shell of every page: two cached assets, Open Graph tags so a pasted link unfurls. */
export function layout(meta: PageMeta, body: string): string {
  const image = meta.image
    ? `<meta property="og:image" content="${esc(meta.image)}"><meta name="twitter:card" content="summary_large_image">`
    : '';
  const ld = meta.jsonLd ? `<script type="application/ld+json">${jsonLd(meta.jsonLd)}</script>` : '';
  // A tab, a search result or an unfurl shows these alone: simulated data says so in both.
  const title = meta.simulated ? `${meta.title} (simulated)` : meta.title;
  const description =
    meta.simulated && !/simulated/i.test(meta.description)
      ? `${meta.description} Simulated demo data.`
      : meta.description;
  const banner = meta.simulated
    ? `<div class="sim" role="note" data-testid="simulated-banner"><p><strong>SIMULATED.</strong> ${esc(SIMULATED_BANNER.replace(/^Simulated demo data: e/, 'E'))}</p></div>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · ${esc(meta.siteName)}</title>
<meta name="description" content="${esc(description)}">
<link rel="icon" href="${FAVICON_HREF}" type="image/svg+xml">
<link rel="canonical" href="${esc(meta.url)}">
<meta property="og:title" content="${esc(title)}">
<meta property="og:description" content="${esc(description)}">
<meta property="og:url" content="${esc(meta.url)}">
<meta property="og:site_name" content="${esc(meta.siteName)}">
${image}
${ld}
<link rel="stylesheet" href="${STYLE_HREF}">
</head>
<body>
<header class="top"><div class="top-in">
<a class="brand" href="/">${FAVICON_SVG.replace('<svg ', '<svg width="24" height="24" aria-hidden="true" ')}${esc(meta.siteName)}</a>
<nav>${navLink('/', 'Leaderboard', meta.section === 'home')}${navLink('/methodology', 'Methodology', meta.section === 'methodology')}${navLink('/mcp', 'MCP', meta.section === 'mcp')}<a href="/api/citable">JSON</a><a href="/api/llm-context">For LLMs</a></nav>
<div class="search" role="search"><input id="q" type="search" placeholder="Search benchmarks" aria-label="Search benchmarks (press /)" autocomplete="off"><kbd aria-hidden="true">/</kbd><ul id="q-results" hidden></ul></div>
</div></header>
${banner}
<main>
${body}
</main>
<footer>${meta.simulated ? 'Simulated demo data, not measurements. ' : ''}Data CC-BY-4.0: cite the page URL. Code MIT. <a href="/api/openapi.json">OpenAPI</a> · <a href="/methodology">How we measure</a></footer>
<script src="${SCRIPT_HREF}"></script>
</body>
</html>
`;
}

/** "12:00 UTC, 2026-11-20" inside a <time> that the page script turns into "N min ago". */
export function agoTime(iso: string | null): string {
  if (!iso) return '<span class="muted">never measured</span>';
  const exact = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return `<time datetime="${esc(iso)}" title="${esc(exact)}" data-ago>${esc(exact)}</time>`;
}
