import type { ProbeFailure } from './types.ts';

export type ProviderStatus = 'ok' | 'zero' | 'failed' | 'not_configured' | 'unsupported';

export interface ProviderOutcome {
  readonly provider: string;
  readonly status: ProviderStatus;
  readonly count?: number;
  readonly failure?: ProbeFailure;
  readonly durationMs: number;
}

export interface CellProviderOutcome {
  readonly provider: string;
  /**
   * ok: counted; zero: a failure the provider caused (counts as zero trades and a failed probe);
   * excluded: a failure on our side (a refused key), nothing written for the provider.
   */
  readonly status: 'ok' | 'zero' | 'excluded';
  readonly count?: number;
  readonly capturePct?: number;
  /** Against the cell's ground truth (T_fin), when it had one. */
  readonly recallPct?: number;
  /** Returned transactions no Swap log of the window holds, when the cell had truth. */
  readonly unmatched?: number;
  /** Of those, the ones the chain shows are no trade of the token (verified phantoms). */
  readonly phantoms?: number;
  readonly capped?: boolean;
  readonly pages?: number;
  readonly failure?: ProbeFailure;
  readonly durationMs: number;
}

export interface CellReport {
  readonly chain: string;
  readonly token: string;
  readonly unionCount?: number;
  /** The cell's ground truth: |T_fin|, or why it had none. */
  readonly truth?: { readonly count: number } | { readonly unavailable: string };
  readonly providers: readonly CellProviderOutcome[];
  /** Set when our cycle deadline (or shutdown) cut the cell short: nothing stored for anyone. */
  readonly abandoned?: 'deadline' | 'shutdown';
}

export interface CycleReport {
  readonly benchmark: string;
  /** The aligned slot time, used as every sample's `t`. */
  readonly at: number;
  readonly durationMs: number;
  readonly samplesWritten: number;
  /** True when the cycle deadline (or stop) cut it short. */
  readonly aborted: boolean;
  readonly providers: readonly ProviderOutcome[];
  readonly cells?: readonly CellReport[];
  /** json-rpc: the newest head our node showed for each chain in the slot (block timestamp, ms): never after the slot in a backfill. */
  readonly heads?: Readonly<Record<string, number>>;
  /** Families with an unresponsive marker (trade capture): provider → marked after this cycle. */
  readonly unresponsive?: Readonly<Record<string, boolean>>;
}
