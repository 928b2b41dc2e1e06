/**
 * The harness's client for reference nodes (REFERENCE_RPC_<CHAIN>): the json-rpc family's answers
 * to check, and the trade cells' ground truth. Plain fetch, one call per request, untimed, and
 * every failure kept with its HTTP status, JSON-RPC code and message, because the truth reader's
 * range splitter must tell a provider's limit (split and retry) from any other error (no truth).
 * No retries: a retried answer that still fails is the same failure, and the next slot asks again.
 */

export class RpcFailure extends Error {
  constructor(
    message: string,
    /** The HTTP status of a non-2xx answer; undefined for JSON-RPC errors and transport failures. */
    readonly httpStatus?: number,
    /** The JSON-RPC error code, when the body held one. */
    readonly code?: number,
    /** The JSON-RPC error message (the text a limit error carries its suggested range in). */
    readonly rpcMessage?: string,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

interface RpcReply {
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown } | null;
}

function parseReply(text: string): RpcReply | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RpcReply) : undefined;
  } catch {
    return undefined;
  }
}

export class ReferenceRpc {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** A batch of one method (referenceBatch), under this client's timeout. */
  batch<T = unknown>(
    method: string,
    params: readonly (readonly unknown[])[],
    signal?: AbortSignal,
  ): Promise<T[]> {
    return referenceBatch<T>(this.url, method, params, this.timeoutMs, signal);
  }

  /** One JSON-RPC call; throws RpcFailure on an HTTP error, a JSON-RPC error, a timeout or a malformed body. */
  async call<T = unknown>(method: string, params: readonly unknown[], signal?: AbortSignal): Promise<T> {
    const id = this.nextId++;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await res.text();
    } catch (e) {
      const why = timeout.aborted ? `timed out after ${this.timeoutMs} ms` : (e as Error).message;
      throw new RpcFailure(`${method}: ${why}`);
    }
    const reply = parseReply(text);
    const err = reply?.error;
    const code = typeof err?.code === 'number' ? err.code : undefined;
    const msg = typeof err?.message === 'string' ? err.message : undefined;
    if (!res.ok) {
      throw new RpcFailure(`${method}: HTTP ${res.status}${msg ? ` (${msg})` : ''}`, res.status, code, msg);
    }
    if (reply === undefined) throw new RpcFailure(`${method}: malformed reply`);
    if (err !== undefined && err !== null)
      throw new RpcFailure(`${method}: ${msg ?? 'error'} (${code ?? '?'})`, undefined, code, msg);
    if (!('result' in reply)) throw new RpcFailure(`${method}: reply without result`);
    return reply.result as T;
  }
}

/**
 * One JSON-RPC batch of `method` over each params list, results in the lists' order; throws as
 * `call` does, and when any entry is missing or an error (a batch is all or nothing here).
 */
export async function referenceBatch<T = unknown>(
  url: string,
  method: string,
  params: readonly (readonly unknown[])[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T[]> {
  if (params.length === 0) return [];
  const body = params.map((p, i) => ({ jsonrpc: '2.0', id: i + 1, method, params: p }));
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    text = await res.text();
  } catch (e) {
    const why = timeout.aborted ? `timed out after ${timeoutMs} ms` : (e as Error).message;
    throw new RpcFailure(`${method} batch: ${why}`);
  }
  if (!res.ok) throw new RpcFailure(`${method} batch: HTTP ${res.status}`, res.status);
  let replies: unknown;
  try {
    replies = JSON.parse(text);
  } catch {
    throw new RpcFailure(`${method} batch: malformed reply`);
  }
  if (!Array.isArray(replies)) throw new RpcFailure(`${method} batch: reply is not a batch`);
  const byId = new Map<unknown, RpcReply>();
  for (const r of replies)
    if (typeof r === 'object' && r !== null) byId.set((r as { id?: unknown }).id, r as RpcReply);
  return params.map((_, i) => {
    const r = byId.get(i + 1);
    if (!r || (r.error !== undefined && r.error !== null) || !('result' in r))
      throw new RpcFailure(`${method} batch: entry ${i + 1} failed or missing`);
    return r.result as T;
  });
}

export function quantity(n: number): string {
  return `0x${n.toString(16)}`;
}

export function parseQuantity(v: unknown, what: string): number {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v))
    throw new RpcFailure(`${what}: not a hex quantity`);
  return Number.parseInt(v, 16);
}
