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

export function quantity(n: number): string {
  return `0x${n.toString(16)}`;
}

export function parseQuantity(v: unknown, what: string): number {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v))
    throw new RpcFailure(`${what}: not a hex quantity`);
  return Number.parseInt(v, 16);
}
