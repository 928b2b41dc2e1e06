import { hash32 } from '../../../core/prng.ts';
import type { HarnessRuntime } from '../../runtime.ts';
import { RpcConnection } from './client.ts';
import type { RpcKind } from './metrics.ts';

/** Every series sends within this much of its slot's start. */
export const OFFSET_SPAN_MS = 30_000;

/** A probe fired this late by our own event loop is not sent: the delay would be ours, not theirs. */
export const MAX_TIMER_LATENESS_MS = 100;

/** One series: a provider's method on a chain, probed once per slot at that slot's offset. */
export interface Series {
  readonly provider: string;
  readonly chain: string;
  readonly kind: RpcKind;
  /** Ms after the slot start this series sends at, by its key and the slot (never by what others do). */
  readonly offsetMs: number;
}

/**
 * A series' offset in one slot: a hash of its key and the slot over [0, OFFSET_SPAN_MS). Drawn
 * afresh every slot, so no series sits at a fixed phase of block production slot after slot.
 */
export function seriesOffset(provider: string, chain: string, kind: RpcKind, slot: number): number {
  return hash32(`${provider}|${chain}|${kind}|${slot}`) % OFFSET_SPAN_MS;
}

// One connection per series and URL for the life of the harness, so keep-alive spans slots.
const connections = new WeakMap<HarnessRuntime, Map<string, RpcConnection>>();

export function connectionOf(rt: HarnessRuntime, s: Series, url: string, chainIdHex: string): RpcConnection {
  let byKey = connections.get(rt);
  if (!byKey) {
    byKey = new Map();
    connections.set(rt, byKey);
  }
  // The URL is part of the key but never leaves this map: it holds the key.
  const key = `${s.provider}|${s.chain}|${s.kind}|${url}`;
  let c = byKey.get(key);
  if (!c) {
    c = new RpcConnection(url, chainIdHex);
    byKey.set(key, c);
  }
  return c;
}

/** Closes every connection of a harness (its stop). */
export function closeConnections(rt: HarnessRuntime): void {
  for (const c of connections.get(rt)?.values() ?? []) c.close();
  connections.delete(rt);
}
