import type { Context } from 'hono';

/**
 * The site's HTML error page, injected by whoever renders pages (src/pages): the HTTP layer asks
 * for one when a browser hits no route, without depending on the page templates.
 */
export type HtmlErrorPage = (
  status: 400 | 404 | 503,
  title: string,
  message: string,
  url: string,
) => Response;

/** True when a browser asked for the page (its Accept names HTML); API clients get JSON. */
export function wantsHtml(c: Context): boolean {
  return /\btext\/html\b/.test(c.req.header('accept') ?? '');
}
