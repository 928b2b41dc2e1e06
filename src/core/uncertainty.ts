/**
 * Uncertainty, written once (issue 24): distribution-free intervals for quantiles from order
 * statistics, the exact sign test on paired values, and the verdict rule that needs both a test and
 * a margin. Deterministic: no resampling and no normal approximation; binomial probabilities are
 * computed in log space and summed exactly where they matter.
 */
import { round6 } from './stats.ts';

/** Each tail of an interval holds at most this much probability, so coverage is at least 95%. */
export const TAIL = 0.025;
/** A verdict needs the sign test's two-sided p below this. */
export const SIGNIFICANCE = 0.05;
/** The spec's `minSamples` when it states none. */
export const DEFAULT_MIN_SAMPLES = 10;
/**
 * A failure share above another's by this many percentage points, by default, is a difference
 * worth ranking on (a spec may state its own, `reliabilityMargin`): one probe in a hundred.
 */
export const DEFAULT_RELIABILITY_MARGIN = 1;

// Lanczos approximation (g = 7, 9 coefficients): ln Γ to ~15 significant digits for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (LANCZOS[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** ln P(Bin(n, q) = k), 0 ≤ k ≤ n, 0 < q < 1. */
function lnPmf(n: number, k: number, q: number): number {
  return lnGamma(n + 1) - lnGamma(k + 1) - lnGamma(n - k + 1) + k * Math.log(q) + (n - k) * Math.log1p(-q);
}

/**
 * The largest k ≥ 0 with P(Bin(n, q) ≤ k) ≤ TAIL, or −1 when even P(B = 0) exceeds it. The sum
 * starts where the mass below is under e^−80, far below what a double can add to 0.025: Hoeffding
 * gives P(B ≤ nq − t) ≤ e^(−2t²/n), and the multiplicative Chernoff bound e^(−t²/(2nq)), tighter
 * for small q. So O(√n) terms, each from the previous one by the ratio
 * P(k+1)/P(k) = (n−k)/(k+1) · q/(1−q) after one ln Γ at the start. Terms stay in log space while a
 * double cannot hold them (at q = .99 and a million samples the first are e^−2000), then continue
 * as plain products, which cost no logarithm.
 */
function lowerTailRank(n: number, q: number): number {
  const reach = Math.min(Math.sqrt(40 * n), Math.sqrt(160 * n * q));
  const k0 = Math.max(0, Math.floor(n * q - reach));
  const lnRatio = Math.log(q) - Math.log1p(-q);
  let k = k0;
  let lnP = lnPmf(n, k0, q);
  // Terms below e^−700 add nothing a double can keep next to 0.025.
  while (lnP < -700 && k < n) {
    lnP += Math.log((n - k) / (k + 1)) + lnRatio;
    k++;
  }
  const ratio = q / (1 - q);
  let pmf = Math.exp(lnP);
  let cdf = 0;
  for (; k <= n; k++) {
    cdf += pmf;
    if (cdf > TAIL) return k - 1;
    pmf *= ((n - k) / (k + 1)) * ratio;
  }
  return n;
}

export interface OrderRanks {
  /** 1-based ranks of the order statistics bounding the interval: [x(lo), x(hi)]. */
  readonly lo: number;
  readonly hi: number;
}

const rankCache = new Map<string, OrderRanks | null>();

/**
 * The ranks of a distribution-free 95% interval for the q-quantile of n samples. With B ~ Bin(n, q):
 * lo = the largest l ≥ 1 with P(B ≤ l−1) ≤ 0.025; hi = the smallest u ≤ n with P(B ≥ u) ≤ 0.025.
 * Null when either does not exist (p50 needs n ≥ 6, p90 n ≥ 36, p99 n ≥ 368). Cached by (n, q): a
 * catalogue's rows share a handful of sample counts.
 */
export function orderStatRanks(n: number, q: number): OrderRanks | null {
  const key = `${n}:${q}`;
  const hit = rankCache.get(key);
  if (hit !== undefined) return hit;
  let out: OrderRanks | null = null;
  if (n >= 1 && q > 0 && q < 1) {
    const kLo = lowerTailRank(n, q);
    // P(B ≥ u) = P(B' ≤ n − u) with B' ~ Bin(n, 1 − q): the same search from the other side.
    const kHi = lowerTailRank(n, 1 - q);
    if (kLo >= 0 && kHi >= 0) out = { lo: kLo + 1, hi: n - kHi };
  }
  if (rankCache.size >= 100_000) rankCache.clear();
  rankCache.set(key, out);
  return out;
}

export type Interval = [number, number];

/** The interval [x(lo), x(hi)] of ascending `sorted` for the q-quantile, rounded like the values. */
export function quantileInterval(sorted: ArrayLike<number>, q: number): Interval | null {
  const r = orderStatRanks(sorted.length, q);
  if (!r) return null;
  return [round6(sorted[r.lo - 1] as number), round6(sorted[r.hi - 1] as number)];
}

export interface Ci95 {
  readonly p50: Interval | null;
  readonly p90: Interval | null;
  readonly p99: Interval | null;
}

/** The intervals a window-mode row publishes beside its p50, p90 and p99 (the mean has none). */
export function ci95Of(sorted: ArrayLike<number>): Ci95 {
  return {
    p50: quantileInterval(sorted, 0.5),
    p90: quantileInterval(sorted, 0.9),
    p99: quantileInterval(sorted, 0.99),
  };
}

export interface SignTest {
  /** Non-zero paired values (m): zeros carry no sign and are dropped. */
  readonly pairs: number;
  readonly plus: number;
  readonly minus: number;
  /** Exact two-sided p: min(1, 2·P(Bin(m, ½) ≤ min(k+, k−))), 1 when m = 0; round6. */
  readonly pValue: number;
}

/** Below this many non-zero values the sign test's p is computed exactly, in integers. */
const EXACT_SIGN_TEST_MAX = 1000;

/** P(Bin(m, ½) ≤ k) for k ≤ m/2, summed downward from k until the terms stop counting. */
function halfBinomialCdf(m: number, k: number): number {
  let pmf = Math.exp(lnPmf(m, k, 0.5));
  let sum = 0;
  for (let j = k; j >= 0 && pmf > 0; j--) {
    sum += pmf;
    if (pmf < sum * 1e-17) break;
    pmf *= j / (m - j + 1);
  }
  return sum;
}

/**
 * round6(min(1, 2·P(Bin(m, ½) ≤ k))) in exact integer arithmetic: p = 2·Σ C(m, j) / 2^m, rounded
 * to six significant digits half up as toPrecision does, so a p on a decimal tie (m = 8, k = 2:
 * 0.2890625) rounds as exact arithmetic does, not as a float sum happens to land.
 */
function exactSignP(m: number, k: number): number {
  let c = 1n;
  let sum = 1n;
  for (let j = 1; j <= k; j++) {
    c = (c * BigInt(m - j + 1)) / BigInt(j);
    sum += c;
  }
  const num = 2n * sum;
  const den = 1n << BigInt(m);
  if (num >= den) return 1;
  // The exponent e with 10^5 ≤ p·10^e < 10^6, then p·10^e rounded half up.
  let e = 0;
  while (num * 10n ** BigInt(e) < 100_000n * den) e++;
  const scaled = num * 10n ** BigInt(e);
  let digits = scaled / den;
  if (2n * (scaled % den) >= den) digits++;
  return Number(`${digits}e-${e}`);
}

const signPCache = new Map<number, number>();

/**
 * p for m non-zero values with min(k+, k−) = k, cached by (m, k): a catalogue's rows share a few
 * cycle counts, and the exact sum is in big integers.
 */
function signP(m: number, k: number): number {
  // Unique per (m, k) with k ≤ m: the pairs of each m take their own m + 1 keys.
  const key = (m * (m + 1)) / 2 + k;
  const hit = signPCache.get(key);
  if (hit !== undefined) return hit;
  const p = m <= EXACT_SIGN_TEST_MAX ? exactSignP(m, k) : round6(Math.min(1, 2 * halfBinomialCdf(m, k)));
  if (signPCache.size >= 100_000) signPCache.clear();
  signPCache.set(key, p);
  return p;
}

/** The exact two-sided sign test on paired values (a − b): how often a was above b, and p. */
export function signTest(diffs: Iterable<number>): SignTest {
  let plus = 0;
  let minus = 0;
  for (const d of diffs) {
    if (d > 0) plus++;
    else if (d < 0) minus++;
  }
  const m = plus + minus;
  const k = Math.min(plus, minus);
  return { pairs: m, plus, minus, pValue: m > 0 ? signP(m, k) : 1 };
}

/**
 * Why a verdict has no winner: not significant, within the margin, or conflicting (significant and
 * beyond the margin, but most paired values favour the side with the worse statistic: the data
 * separate the two in opposite directions, which is named as such, never a statistical tie).
 */
export type TieReason = 'not-significant' | 'within-margin' | 'conflicting';

export interface VerdictInput {
  /** The sign test on paired values a − b. */
  readonly test: SignTest;
  /** Δ = a's p50 − b's p50. */
  readonly delta: number;
  /** The spec's tieMargin: the smallest p50 difference worth a verdict, in its unit. */
  readonly margin: number;
  readonly higherIsBetter: boolean;
}

export type Verdict =
  | { readonly winner: 'a' | 'b'; readonly reason: null }
  | { readonly winner: 'tie'; readonly reason: TieReason };

/**
 * The verdict rule's first two conditions, in order: p < 0.05, then |Δ| > margin. A tie that passes
 * both failed the third (direction), so a published row's reason follows from its p, Δ and margin.
 */
export function tieBeforeDirection(pValue: number, delta: number, margin: number): TieReason | null {
  if (!(pValue < SIGNIFICANCE)) return 'not-significant';
  if (!(Math.abs(delta) > margin)) return 'within-margin';
  return null;
}

/**
 * The verdict rule: the side with the better p50 wins only when the sign test gives p < 0.05, |Δ|
 * exceeds the margin, and more paired values favour that side. Otherwise a statistical tie, whose
 * reason is the first condition that failed. Significance alone would crown trivial differences
 * (tens of thousands of samples make anything significant); the margin alone would crown noise.
 */
export function verdict(i: VerdictInput): Verdict {
  const first = tieBeforeDirection(i.test.pValue, i.delta, i.margin);
  if (first) return { winner: 'tie', reason: first };
  const better: 'a' | 'b' = i.delta > 0 === i.higherIsBetter ? 'a' : 'b';
  // A paired value a − b favours a when it points the benchmark's better way.
  const forA = i.higherIsBetter ? i.test.plus : i.test.minus;
  const forB = i.higherIsBetter ? i.test.minus : i.test.plus;
  const agrees = better === 'a' ? forA > forB : forB > forA;
  return agrees ? { winner: better, reason: null } : { winner: 'tie', reason: 'conflicting' };
}
