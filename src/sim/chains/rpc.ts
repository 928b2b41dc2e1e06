/**
 * A bare JSON-RPC client for our own anvil nodes: plain fetch (undici keeps the connection alive),
 * no retries, every error thrown. Building 2,100 blocks a chain means ~4,000 requests, so it
 * skips viem's client layers and sends a block's transactions as one batch.
 */

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

interface RpcReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: number; readonly message?: string };
}

export class RpcClient {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [result] = await this.batch([{ method, params }]);
    return result as T;
  }

  /** Results in call order; the first JSON-RPC error fails the whole batch. */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls.length === 1 ? body[0] : body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${calls[0]?.method}: HTTP ${res.status}`);
    const parsed = JSON.parse(text) as RpcReply | RpcReply[];
    const replies = Array.isArray(parsed) ? parsed : [parsed];
    const out: unknown[] = new Array(calls.length);
    let seen = 0;
    for (const r of replies) {
      const i = typeof r.id === 'number' ? r.id - first : -1;
      const call = calls[i];
      if (call === undefined) throw new Error(`unexpected JSON-RPC reply id ${String(r.id)}`);
      if (r.error) throw new Error(`${call.method}: ${r.error.message ?? 'error'} (${r.error.code ?? '?'})`);
      out[i] = r.result;
      seen++;
    }
    if (seen !== calls.length)
      throw new Error(`${calls[0]?.method}: ${seen} replies for ${calls.length} calls`);
    return out;
  }
}

export function hexToNumber(hex: unknown): number {
  if (typeof hex !== 'string' || !hex.startsWith('0x')) throw new Error(`not a hex quantity: ${String(hex)}`);
  return Number.parseInt(hex, 16);
}

export function toQuantity(n: number | bigint): string {
  return `0x${n.toString(16)}`;
}
