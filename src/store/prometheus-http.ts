import { z } from 'zod';
import { Semaphore } from '../concurrency/semaphore.ts';

export interface PrometheusHttpOptions {
  readonly timeoutMs: number;
  readonly bearerToken?: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  /** Sent as X-Scope-OrgID (Mimir, Cortex, VictoriaMetrics vmauth setups). */
  readonly tenant?: string;
  /** Requests in flight at once, reads and writes together. */
  readonly maxConcurrency: number;
  /** Retries after a network error, a timeout, a 5xx, a 429 or a read that raced a compaction. */
  readonly retries: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/**
 * An engine answer that is not a success. `down` means: retry later (network, timeout, 5xx, 429,
 * or a 422 that only says a compaction moved a chunk mid-read).
 */
/**
 * Reported through `onError` when the engine does not answer and the store carries on (writes
 * buffered, a start-up check): a state, which the writer logs once per outage, not an error.
 */
export class EngineUnreachable extends Error {
  override readonly name = 'EngineUnreachable';
}

export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    message: string,
    readonly down: boolean,
    readonly status?: number,
    /** From a Retry-After header, when the engine sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function retryAfterMs(res: Response): number | null {
  const h = res.headers.get('retry-after');
  if (!h) return null;
  const s = Number(h);
  if (Number.isFinite(s)) return s * 1000;
  const d = Date.parse(h);
  return Number.isFinite(d) ? d - Date.now() : null;
}

/**
 * A read that raced the engine's head compaction: Prometheus 2.x listed a chunk, the compaction
 * moved it into a block, and reading it fails with 422 "cannot populate chunk N from block B:
 * not found". The samples are in the new block, so the same query succeeds when sent again.
 */
const COMPACTION_RACE = /cannot populate chunk \S+ from block \S+: not found/;

const apiError = z.object({
  status: z.literal('error'),
  errorType: z.string().optional(),
  error: z.string(),
});

/** The HTTP side of the engine: auth, tenant, timeout, bounded concurrency, retries, no redirects. */
export class PrometheusHttp {
  private readonly slots: Semaphore;
  private readonly headers: Record<string, string> = {};
  /** HTTP requests sent, retries included, by kind: what the tests and the bench count. */
  readonly counts = { reads: 0, writes: 0 };

  constructor(private readonly opts: PrometheusHttpOptions) {
    this.slots = new Semaphore(opts.maxConcurrency);
    if (opts.bearerToken) this.headers.authorization = `Bearer ${opts.bearerToken}`;
    else if (opts.basicAuth) {
      const { username, password } = opts.basicAuth;
      this.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    if (opts.tenant) this.headers['x-scope-orgid'] = opts.tenant;
  }

  private slot<T>(fn: () => Promise<T>): Promise<T> {
    return this.slots.run(fn);
  }

  /** One attempt. Resolves with the body of a 2xx; throws EngineError otherwise. */
  private async once(
    kind: 'reads' | 'writes',
    url: string,
    init: {
      method: 'GET' | 'POST';
      headers?: Record<string, string>;
      body?: Uint8Array<ArrayBuffer> | URLSearchParams;
    },
  ): Promise<string> {
    this.counts[kind]++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method,
        headers: { ...this.headers, ...init.headers },
        ...(init.body === undefined ? {} : { body: init.body }),
        // A redirect would replay the credentials to another origin and hide a misconfigured URL.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (e) {
      const why =
        e instanceof Error && e.name === 'TimeoutError'
          ? `timed out after ${this.opts.timeoutMs} ms`
          : String(e);
      throw new EngineError(`${init.method} ${url}: ${why}`, true);
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return text;
    const parsed = apiError.safeParse(safeJson(text));
    const detail = parsed.success ? parsed.data.error : text.slice(0, 300);
    if (res.status >= 300 && res.status < 400) {
      throw new EngineError(
        `${init.method} ${url}: redirect to ${res.headers.get('location') ?? '?'} not followed; set the final URL`,
        false,
        res.status,
      );
    }
    const down =
      res.status >= 500 || res.status === 429 || (res.status === 422 && COMPACTION_RACE.test(detail));
    throw new EngineError(
      `${init.method} ${url}: HTTP ${res.status}: ${detail}`,
      down,
      res.status,
      down ? retryAfterMs(res) : null,
    );
  }

  /** Sends with retries and exponential back-off (honouring Retry-After up to retryMaxMs). */
  async send(
    kind: 'reads' | 'writes',
    url: string,
    init: {
      method: 'GET' | 'POST';
      headers?: Record<string, string>;
      body?: Uint8Array<ArrayBuffer> | URLSearchParams;
    },
    retries = this.opts.retries,
  ): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.slot(() => this.once(kind, url, init));
      } catch (e) {
        if (!(e instanceof EngineError) || !e.down || attempt >= retries) throw e;
        const backoff = this.opts.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        await sleep(Math.min(this.opts.retryMaxMs, Math.max(e.retryAfterMs ?? 0, backoff)));
      }
    }
  }

  /** A Prometheus HTTP API call (form-encoded POST, so long selectors never hit URL limits). */
  async api(path: string, base: string, params: Record<string, string | string[]>): Promise<unknown> {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params))
      for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    const text = await this.send('reads', `${base}${path}`, { method: 'POST', body: form });
    const json = safeJson(text);
    if (json === undefined)
      throw new EngineError(`${base}${path}: answer is not JSON: ${text.slice(0, 200)}`, false);
    return json;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
