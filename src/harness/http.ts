import { fail, ok, type Result } from './types.ts';

export interface HttpOptions {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /** Retries after a 429 (Retry-After honoured, capped by retryMaxWaitMs). */
  readonly maxRetries: number;
  readonly retryMaxWaitMs: number;
  /** The cycle's deadline signal: aborting it ends every request in flight. */
  readonly signal?: AbortSignal;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface HttpRequest {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

const ERROR_SNIPPET_BYTES = 2048;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Retry-After is delta-seconds or an HTTP date; absent or unreadable means 1 s. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 1000;
  const s = header.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const d = Date.parse(s);
  return Number.isNaN(d) ? 1000 : Math.max(0, d - now);
}

type Body = { kind: 'ok'; text: string } | { kind: 'oversized'; bytes: number };

/** Streams the body and gives up past the cap, so a hostile body never sits in memory whole. */
async function readCapped(res: Response, cap: number): Promise<Body> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > cap) {
    await res.body?.cancel().catch(() => {});
    return { kind: 'oversized', bytes: declared };
  }
  if (!res.body) return { kind: 'ok', text: '' };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return { kind: 'oversized', bytes: total };
    }
    chunks.push(value);
  }
  return { kind: 'ok', text: Buffer.concat(chunks, total).toString('utf8') };
}

type Attempt = { done: Result<unknown> } | { retryAfterMs: number; message: string };

/** The reason our per-request timer aborts with, to tell it apart from the cycle's own deadline. */
const REQUEST_TIMEOUT = Symbol('request timeout');

async function attempt(req: HttpRequest, opts: HttpOptions): Promise<Attempt> {
  if (opts.signal?.aborted) return { done: fail('deadline', 'cycle deadline reached before the request') };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(REQUEST_TIMEOUT), opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
  try {
    const res = await fetch(req.url, {
      method: req.method ?? 'GET',
      headers: { accept: 'application/json', ...req.headers },
      ...(req.body !== undefined ? { body: req.body } : {}),
      signal,
    });
    const status = res.status;
    if (status >= 200 && status < 300) {
      const body = await readCapped(res, opts.maxBodyBytes);
      if (body.kind === 'oversized') {
        return { done: fail('oversized', `body exceeds ${opts.maxBodyBytes} bytes`) };
      }
      try {
        return { done: ok(JSON.parse(body.text) as unknown) };
      } catch (e) {
        return { done: fail('parse', `invalid JSON: ${(e as Error).message}`) };
      }
    }
    const snippet = await readCapped(res, ERROR_SNIPPET_BYTES);
    const text = snippet.kind === 'ok' ? snippet.text.slice(0, 300) : '(large error body)';
    const message = `HTTP ${status}${text ? `: ${text}` : ''}`;
    if (status === 429) return { retryAfterMs: retryAfterMs(res.headers.get('retry-after')), message };
    if (status === 401 || status === 403) return { done: fail('auth', message, status) };
    return { done: fail('http_status', message, status) };
  } catch (e) {
    // AbortSignal.any carries the reason of whichever signal fired first: the provider's timeout
    // is the provider's failure, our cycle deadline is ours (it must never score the provider).
    if (signal.aborted && signal.reason === REQUEST_TIMEOUT)
      return { done: fail('timeout', `no complete response within ${opts.timeoutMs} ms`) };
    if (opts.signal?.aborted) return { done: fail('deadline', 'cycle deadline reached mid-request') };
    const err = e as Error & { cause?: { code?: string; message?: string } };
    return { done: fail('network', err.cause?.code ?? err.cause?.message ?? err.message) };
  } finally {
    clearTimeout(timer);
  }
}

/** One JSON request with timeout, body cap, status classification and bounded 429 back-off. */
export async function requestJson(req: HttpRequest, opts: HttpOptions): Promise<Result<unknown>> {
  const sleep = opts.sleep ?? abortableSleep;
  for (let n = 0; ; n++) {
    const a = await attempt(req, opts);
    if ('done' in a) return a.done;
    if (opts.signal?.aborted)
      return fail('deadline', `cycle deadline reached while rate-limited (${a.message})`);
    if (n >= opts.maxRetries) return fail('rate_limit', `${a.message} (after ${n} retries)`, 429);
    // Honour Retry-After, but never wait longer than the bound; grow the wait on repeats.
    const wait = Math.min(Math.max(a.retryAfterMs, 250 * 2 ** n), opts.retryMaxWaitMs);
    await sleep(wait, opts.signal);
  }
}
