import { RPC_PROFILE_RANGES, type RpcProfile } from '../profiles.ts';

/** What one HTTP request to a simulated provider gets, drawn before it is answered. */
export interface RequestDraw {
  readonly delayMs: number;
  readonly stall: boolean;
  /** 200, or the HTTP error the provider answers with instead. */
  readonly status: number;
  /** Blocks behind the upstream head for this request. */
  readonly lag: number;
}

/** What one call (one element of a batch) gets. */
export interface CallDraw {
  readonly rpcError: boolean;
  readonly wrong: boolean;
  readonly nonCanonical: boolean;
  /** In [0, 1): picks the error code or the log dropped. */
  readonly pick: number;
}

/** Standard normal from two uniforms (Box–Muller); 1 − u keeps the log finite. */
function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/**
 * One request's draws. The number of draws is fixed whatever the outcome, so a stream seeded the
 * same way answers the same sequence of requests the same way.
 */
export function drawRequest(p: RpcProfile, r: () => number): RequestDraw {
  const body = p.medianMs * Math.exp(p.sigma * normal(r));
  const tailHit = r() < p.tailRate;
  const [t0, t1] = RPC_PROFILE_RANGES.tailFactor;
  const tail = t0 + (t1 - t0) * r();
  const stall = r() < p.stallRate;
  const e = r();
  const status =
    e < p.http5xxRate ? (e < p.http5xxRate / 2 ? 503 : 502) : e < p.http5xxRate + p.http429Rate ? 429 : 200;
  const jitterHit = r() < p.lagJitterRate;
  const jitter = r() < 0.5 ? -1 : 1;
  const [l0, l1] = RPC_PROFILE_RANGES.headLag;
  return {
    delayMs: stall ? RPC_PROFILE_RANGES.stallMs : Math.round(tailHit ? body * tail : body),
    stall,
    status,
    lag: Math.max(l0, Math.min(l1, p.headLag + (jitterHit ? jitter : 0))),
  };
}

export function drawCall(p: RpcProfile, r: () => number): CallDraw {
  return {
    rpcError: r() < p.rpcErrorRate,
    wrong: r() < p.wrongRate,
    nonCanonical: r() < p.nonCanonicalRate,
    pick: r(),
  };
}
