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
