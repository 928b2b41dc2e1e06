import type { Hono } from 'hono';
import type { Publication } from '../publication/publication.ts';
import type { ServedText } from '../publication/served.ts';
import { ANY_BENCHMARK } from './hot-path.ts';
import { viewSource } from './hot-source.ts';
import { CACHE, sendBytes } from './respond.ts';
import { openRoute } from './route-kit.ts';
import { llmsFullTxtRoute, llmsTxtRoute } from './site-declarations.ts';

/** llmstxt.org serves Markdown from a .txt: plain text, so a browser shows it rather than saving it. */
const TEXT = 'text/plain; charset=utf-8';

/**
 * /llms.txt and /llms-full.txt (llmstxt.org), outside the API document like the pages. Both are
 * live views of every benchmark: cached by the publication, replayed by the hot path until a
 * sample changes them. /llms-full.txt is /api/llm-context's very bytes (and ETag) as plain text.
 */
export function registerLlmsRoutes(app: Hono, pub: Publication): void {
  const send = (c: Parameters<typeof sendBytes>[0], s: ServedText) =>
    sendBytes(
      c,
      { body: s.body, etag: s.etag, contentType: TEXT, cacheControl: CACHE.live },
      viewSource(pub, s, ANY_BENCHMARK),
    );
  openRoute(app, llmsTxtRoute, async (c) => send(c, await pub.llmsTxt()), { hidden: true });
  openRoute(app, llmsFullTxtRoute, async (c) => send(c, await pub.llmContext()), { hidden: true });
}
