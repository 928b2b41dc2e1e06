import { CACHE } from '../http/respond.ts';
import { esc, layout } from './html.ts';

const HTML = 'text/html; charset=utf-8';

/** An HTML error page in the site layout (unknown pages, bad filters, store down). */
export function htmlErrorPage(
  status: number,
  title: string,
  message: string,
  site: { name: string; simulated?: boolean },
  url: string,
): Response {
  const body = layout(
    { title, description: message, url, siteName: site.name, simulated: site.simulated === true },
    `<p class="eyebrow">Error ${status}</p><h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/">See every benchmark</a> · <a href="/methodology">Methodology</a></p>`,
  );
  return new Response(body, {
    status,
    headers: {
      'content-type': HTML,
      'cache-control': CACHE.none,
      ...(status === 503 ? { 'retry-after': '30' } : {}),
    },
  });
}
