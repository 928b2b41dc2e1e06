import { hashInts, hashString, unit } from './prng.ts';

/**
 * How one simulated provider behaves, drawn from the seed (DEMO_SEED) by the same rule for every
 * provider: no provider is favoured in code, so which one leads a simulated benchmark depends on
 * the seed alone, as it should for data that says nothing about the real providers.
 */
export interface ProviderProfile {
  /** Share of the true trades it returns, per (token, hour): drawn uniformly in [lo, hi]. */
  readonly capture: readonly [number, number];
  /** Multiplier of the demo's live latency (0.5×–2×). */
  readonly latencyFactor: number;
  /** Mainnet networks in its listing. */
  readonly listingSize: number;
}

/**
 * Ranges every provider draws from. Listing sizes stay within the smallest pool a listing picks
 * from (EVM chains only, about 360 in src/sim/networks.ts), so any provider can draw any size.
 */
export const PROFILE_RANGES = {
  captureCentre: [0.86, 0.99],
  captureHalfWidth: [0.01, 0.05],
  latencyFactor: [0.5, 2],
  listingSize: [50, 300],
} as const;

function draw(seed: number, slug: string, salt: number, [lo, hi]: readonly [number, number]): number {
  return lo + (hi - lo) * unit(hashInts(seed, hashString(slug), salt));
}

export function providerProfile(seed: number, slug: string): ProviderProfile {
  const r = PROFILE_RANGES;
  const centre = draw(seed, slug, 1, r.captureCentre);
  const half = draw(seed, slug, 2, r.captureHalfWidth);
  return {
    capture: [Math.max(0, centre - half), Math.min(1, centre + half)],
    latencyFactor: draw(seed, slug, 3, r.latencyFactor),
    listingSize: Math.floor(draw(seed, slug, 4, [r.listingSize[0], r.listingSize[1] + 1])),
  };
}

/** Capture ranges of the given providers for a seed (the trade model's `capture`). */
export function captureProfiles(
  seed: number,
  slugs: readonly string[],
): Readonly<Record<string, readonly [number, number]>> {
  return Object.fromEntries(slugs.map((s) => [s, providerProfile(seed, s).capture]));
}

/**
 * Faults of a provider's answers read from a demo chain's Swap logs (src/sim/chain-stream.ts), on
 * top of the dropped txs its capture range already draws. Every draw is a pure function of (seed,
 * provider, chain, token, row or window), so two runs answer the same; the rates are drawn here by
 * one rule for every provider, like the capture ranges.
 */
export interface ChainFaultProfile {
  /** Indexing lag (s): rows newer than the indexed head's time minus this are not served yet. */
  readonly lagSec: number;
  /** Share of rows that, ending a page, start the next page again (a duplicate across pages). */
  readonly duplicateRate: number;
  /** At most this many real rows from just before the window start, and as many after its end, per answer. */
  readonly outOfWindowMax: number;
  /** Share of rows followed by a row whose hash is on no chain. */
  readonly phantomRate: number;
}

/** Ranges every provider draws its chain faults from (lag 0–120 s, as the issue asks). */
export const CHAIN_FAULT_RANGES = {
  lagSec: [0, 120],
  duplicateRate: [0, 0.5],
  outOfWindowMax: [0, 4],
  phantomRate: [0, 0.02],
} as const;

/** Every chain fault off: the answer is exactly the chain's rows of the window (less capture drops). */
export const NO_CHAIN_FAULTS: ChainFaultProfile = {
  lagSec: 0,
  duplicateRate: 0,
  outOfWindowMax: 0,
  phantomRate: 0,
};

export function chainFaultProfile(seed: number, slug: string): ChainFaultProfile {
  const r = CHAIN_FAULT_RANGES;
  // Salts from 200 on: providerProfile uses 1–4 and rpcProfile 100–111.
  return {
    lagSec: Math.floor(draw(seed, slug, 200, [r.lagSec[0], r.lagSec[1] + 1])),
    duplicateRate: draw(seed, slug, 201, r.duplicateRate),
    outOfWindowMax: Math.floor(draw(seed, slug, 202, [r.outOfWindowMax[0], r.outOfWindowMax[1] + 1])),
    phantomRate: draw(seed, slug, 203, r.phantomRate),
  };
}

/** Chain-fault profiles of the given providers for a seed. */
export function chainFaultProfiles(
  seed: number,
  slugs: readonly string[],
): Readonly<Record<string, ChainFaultProfile>> {
  return Object.fromEntries(slugs.map((s) => [s, chainFaultProfile(seed, s)]));
}

/**
 * Picks `n` distinct providers from `slugs` for a seed (which provider suffers the demo's scripted
 * incidents), in a seed-stable order that does not depend on how `slugs` is ordered.
 */
export function pickProviders(seed: number, slugs: readonly string[], n: number, salt: number): string[] {
  return [...slugs]
    .sort()
    .map((s) => ({ s, k: hashInts(seed, hashString(s), salt) }))
    .sort((a, b) => a.k - b.k)
    .slice(0, n)
    .map((x) => x.s);
}

/**
 * How one simulated JSON-RPC provider behaves in one region. The median is a per-provider base
 * times a per-(provider, region) multiplier, so a provider fast in one region need not be fast in
 * another, and every rate stays small enough that the simulated providers look like working ones.
 */
export interface RpcProfile {
  /** Median of the latency body (ms). */
  readonly medianMs: number;
  /** Log-normal spread of the body around the median. */
  readonly sigma: number;
  /** Share of requests in the tail (2–5× a body draw). */
  readonly tailRate: number;
  /** Share of requests that stall past the probe's 10 s timeout. */
  readonly stallRate: number;
  readonly http5xxRate: number;
  readonly http429Rate: number;
  /** Share of calls answered HTTP 200 with a JSON-RPC `error`. */
  readonly rpcErrorRate: number;
  /** Typical head lag in blocks. */
  readonly headLag: number;
  /** Share of requests whose lag is one block off the typical one (staying within 0–3). */
  readonly lagJitterRate: number;
  /** Share of balance/call/logs answers that are wrong. */
  readonly wrongRate: number;
  /** Share of `latest` blocks served with a hash that is not the canonical one. */
  readonly nonCanonicalRate: number;
}

/** Ranges every RPC provider draws from, in every region; the issue bounds the median to ~15–150 ms. */
export const RPC_PROFILE_RANGES = {
  baseMedianMs: [25, 75],
  regionFactor: [0.6, 2],
  sigma: [0.1, 0.35],
  tailRate: [0.01, 0.05],
  tailFactor: [2, 5],
  stallRate: [0.0005, 0.003],
  stallMs: 15_000,
  http5xxRate: [0.001, 0.01],
  http429Rate: [0.0005, 0.005],
  rpcErrorRate: [0.001, 0.008],
  headLag: [0, 3],
  lagJitterRate: [0, 0.2],
  wrongRate: [0.0005, 0.005],
  nonCanonicalRate: [0.0003, 0.003],
} as const;

function drawIn(
  seed: number,
  slug: string,
  region: string,
  salt: number,
  [lo, hi]: readonly [number, number],
): number {
  return lo + (hi - lo) * unit(hashInts(seed, hashString(slug), hashString(region), salt));
}

export function rpcProfile(seed: number, slug: string, region: string): RpcProfile {
  const r = RPC_PROFILE_RANGES;
  // Salts from 100 on: the region-free base must not reuse a draw of providerProfile (salts 1–4).
  const base = draw(seed, slug, 100, r.baseMedianMs);
  const at = (salt: number, range: readonly [number, number]) => drawIn(seed, slug, region, salt, range);
  return {
    medianMs: base * at(101, r.regionFactor),
    sigma: at(102, r.sigma),
    tailRate: at(103, r.tailRate),
    stallRate: at(104, r.stallRate),
    http5xxRate: at(105, r.http5xxRate),
    http429Rate: at(106, r.http429Rate),
    rpcErrorRate: at(107, r.rpcErrorRate),
    headLag: Math.min(r.headLag[1], Math.floor(at(108, [r.headLag[0], r.headLag[1] + 1]))),
    lagJitterRate: at(109, r.lagJitterRate),
    wrongRate: at(110, r.wrongRate),
    nonCanonicalRate: at(111, r.nonCanonicalRate),
  };
}
