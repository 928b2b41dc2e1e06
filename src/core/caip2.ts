/**
 * CAIP-2 chain ids (`namespace:reference`, https://chainagnostic.org/CAIPs/caip-2). A dozen lines of
 * the spec's grammar instead of the `caip` package: we only need to validate and to canonicalise EVM ids.
 */

/** The spec's grammar: namespace `[-a-z0-9]{3,8}`, reference `[-_a-zA-Z0-9]{1,32}`. */
const CAIP2 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/;

export interface Caip2 {
  readonly namespace: string;
  readonly reference: string;
}

export function parseCaip2(id: string): Caip2 | null {
  const m = CAIP2.exec(id);
  return m ? { namespace: m[1]!, reference: m[2]! } : null;
}

/** `eip155:<decimal>` for a positive safe integer, else null. */
export function evmCaip2(id: number | bigint): string | null {
  const n = typeof id === 'bigint' ? id : Number.isSafeInteger(id) ? BigInt(id) : -1n;
  return n > 0n ? `eip155:${n}` : null;
}

/**
 * An EVM chain id in any form providers use: `1`, `0x1`, `0001`, `evm:1`, `eip155:1`, `EIP155:0x1`,
 * or a number. Anything else (`solana:solana`, `cosmos:cosmoshub-4`) is null: not an EVM id.
 */
export function evmIdToCaip2(value: string | number): string | null {
  if (typeof value === 'number') return Number.isInteger(value) ? evmCaip2(value) : null;
  const s = value.trim().toLowerCase();
  const m = /^(?:(?:evm|eip155):)?(0x[0-9a-f]+|\d+)$/.exec(s);
  if (!m) return null;
  try {
    return evmCaip2(BigInt(m[1]!));
  } catch {
    return null;
  }
}

/**
 * A doubled `name:name` (Mobula's `solana:solana`, `stellar:stellar`) is a provider's name for a
 * chain, not a CAIP-2 id, though it fits the grammar: no namespace's reference repeats the namespace.
 * Returns the bare name, or null for anything else.
 */
export function doubledName(value: string): string | null {
  const m = /^([^:]+):([^:]+)$/.exec(value.trim());
  return m && m[1]!.toLowerCase() === m[2]!.toLowerCase() ? m[1]!.toLowerCase() : null;
}

/**
 * The CAIP-2 id of a chain id as a provider wrote it, or null when it is not one. EVM forms become
 * `eip155:<decimal>`: numeric EVM references are the only ones canonicalised. Otherwise the namespace
 * is lower-cased (CAIP-2 namespaces are lowercase) and the reference kept exactly as written, since
 * references are case-sensitive (Solana's is a base58 genesis hash: lower-casing it names no chain).
 */
export function toCaip2(value: string | number): string | null {
  const evm = evmIdToCaip2(value);
  if (evm) return evm;
  if (typeof value === 'number') return null;
  const s = value.trim();
  if (doubledName(s) !== null) return null;
  const i = s.indexOf(':');
  if (i < 0) return null;
  const id = `${s.slice(0, i).toLowerCase()}${s.slice(i)}`;
  return parseCaip2(id) ? id : null;
}

/** The EVM chain id of an `eip155:` CAIP-2 id, or null. */
export function evmChainNumber(caip2: string): number | null {
  const m = /^eip155:(\d+)$/.exec(caip2);
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : null;
}
