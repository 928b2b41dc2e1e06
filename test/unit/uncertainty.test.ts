/**
 * Issue 24 rules 2–4, in src/core/uncertainty.ts and src/core/paired.ts: order-statistic intervals
 * checked against exact rational arithmetic (BigInt), the sign test against an exact binomial table,
 * and the verdict rule on synthetic samples with fixed seeds.
 */
import { describe, expect, it } from 'vitest';
import { pairedCycleDiffs } from '../../src/core/paired.ts';
import { prng } from '../../src/core/prng.ts';
import type { Sample } from '../../src/core/samples.ts';
import { quantileSorted, round6 } from '../../src/core/stats.ts';
import {
  ci95Of,
  orderStatRanks,
  quantileInterval,
  signTest,
  type TieReason,
  verdict,
} from '../../src/core/uncertainty.ts';

/** C(n, k) for k = 0..n, exactly. */
function binomialRow(n: number): bigint[] {
  const row = [1n];
  for (let k = 1; k <= n; k++) row.push(((row[k - 1] as bigint) * BigInt(n - k + 1)) / BigInt(k));
  return row;
}

/**
 * The ranks by the rule's own words, in exact arithmetic: q = num/den, so P(B ≤ k) ≤ 1/40 becomes
 * 40·Σ C(n,j)·num^j·(den−num)^(n−j) ≤ den^n.
 */
function exactRanks(n: number, num: number, den: number): { lo: number; hi: number } | null {
  const c = binomialRow(n);
  const a = BigInt(num);
  const b = BigInt(den - num);
  const total = BigInt(den) ** BigInt(n);
  const term = (k: number) => (c[k] as bigint) * a ** BigInt(k) * b ** BigInt(n - k);
  // Lower: the largest l ≥ 1 with P(B ≤ l − 1) ≤ 1/40.
  let lo: number | null = null;
  let cdf = 0n;
  for (let l = 1; l <= n; l++) {
    cdf += term(l - 1);
    if (40n * cdf <= total) lo = l;
    else break;
  }
  // Upper: the smallest u ≤ n with P(B ≥ u) ≤ 1/40.
  let hi: number | null = null;
  let tail = 0n;
  for (let u = n; u >= 1; u--) {
    tail += term(u);
    if (40n * tail <= total) hi = u;
    else break;
  }
  return lo === null || hi === null ? null : { lo, hi };
}

describe('rule 2: intervals from order statistics', () => {
  it('gives the issue’s rank vectors', () => {
    const vectors: [number, number, [number, number]][] = [
      [6, 0.5, [1, 6]],
      [10, 0.5, [2, 9]],
      [48, 0.5, [17, 32]],
      [100, 0.5, [40, 61]],
      [480, 0.5, [219, 262]],
      [36, 0.9, [29, 36]],
      [368, 0.99, [360, 368]],
      [1000, 0.99, [983, 997]],
    ];
    for (const [n, q, [lo, hi]] of vectors) expect(orderStatRanks(n, q), `n=${n} q=${q}`).toEqual({ lo, hi });
  });

  it('is null below 6 (p50), 36 (p90) and 368 (p99) samples', () => {
    expect(orderStatRanks(5, 0.5)).toBeNull();
    expect(orderStatRanks(35, 0.9)).toBeNull();
    expect(orderStatRanks(367, 0.99)).toBeNull();
    const r = orderStatRanks(35, 0.5);
    expect(ci95Of(Float64Array.from({ length: 35 }, (_, i) => i))).toEqual({
      p50: r && [r.lo - 1, r.hi - 1],
      p90: null,
      p99: null,
    });
  });

  it('equals exact rational arithmetic for every n to 400, and for larger n at each quantile', () => {
    const qs: [number, number, number][] = [
      [0.5, 1, 2],
      [0.9, 9, 10],
      [0.99, 99, 100],
    ];
    for (const [q, num, den] of qs) {
      for (let n = 1; n <= 400; n++)
        expect(orderStatRanks(n, q), `n=${n} q=${q}`).toEqual(exactRanks(n, num, den));
      for (const n of [997, 1000, 1531, 2400]) {
        expect(orderStatRanks(n, q), `n=${n} q=${q}`).toEqual(exactRanks(n, num, den));
      }
    }
  });

  it('contains quantileSorted’s value for every n to 20,000', () => {
    for (const q of [0.5, 0.9, 0.99]) {
      for (let n = 1; n <= 20_000; n++) {
        const r = orderStatRanks(n, q);
        if (!r) continue;
        // quantileSorted interpolates between x(⌊h⌋+1) and x(⌈h⌉+1), h = q(n−1), 1-based.
        const h = q * (n - 1);
        if (r.lo > Math.floor(h) + 1 || r.hi < Math.ceil(h) + 1)
          throw new Error(`n=${n} q=${q}: ${r.lo}–${r.hi}`);
      }
    }
    const rand = prng(7);
    for (const n of [6, 37, 368, 1000, 20_000]) {
      const sorted = Float64Array.from({ length: n }, () => rand() * 1000).sort();
      for (const q of [0.5, 0.9, 0.99]) {
        const ci = quantileInterval(sorted, q);
        if (!ci) continue;
        const v = round6(quantileSorted(sorted, q));
        expect(ci[0] <= v && v <= ci[1], `n=${n} q=${q}`).toBe(true);
      }
    }
  });

  it('reads x(l) and x(u) of the sorted samples, rounded like the values', () => {
    const sorted = Float64Array.from({ length: 10 }, (_, i) => i + 0.1234567);
    expect(quantileInterval(sorted, 0.5)).toEqual([1.12346, 8.12346]);
  });

  it('covers the true median at least 95% of the time (seeded simulation)', () => {
    const rand = prng(11);
    let covered = 0;
    const trials = 2000;
    for (let t = 0; t < trials; t++) {
      // Exponential samples: median ln 2.
      const sorted = Float64Array.from({ length: 48 }, () => -Math.log(1 - rand())).sort();
      const ci = quantileInterval(sorted, 0.5);
      if (ci && ci[0] <= Math.LN2 && Math.LN2 <= ci[1]) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.95);
  });
});

/** num/den (≤ 1 → as is, else 1) to six significant digits, half up, via exact decimal digits. */
function decimalRound6(num: bigint, den: bigint): number {
  if (num >= den) return 1;
  const digits = ((num * 10n ** 40n) / den).toString().padStart(40, '0');
  const first = digits.search(/[1-9]/);
  const kept = BigInt(digits.slice(first, first + 6)) + (Number(digits[first + 6]) >= 5 ? 1n : 0n);
  return Number(`${kept}e-${first + 6}`);
}

describe('rule 3: the exact sign test', () => {
  it('equals an exact binomial table', () => {
    for (let m = 1; m <= 60; m++) {
      const c = binomialRow(m);
      for (let k = 0; k <= m; k++) {
        const lo = Math.min(k, m - k);
        let cdf = 0n;
        for (let j = 0; j <= lo; j++) cdf += c[j] as bigint;
        // p = min(1, 2·cdf / 2^m) as a decimal string of 40 places, rounded to 6 significant
        // digits by the decimal rules (half up), with no float in between.
        const diffs = [...Array(k).fill(1), ...Array(m - k).fill(-1), 0, 0];
        const t = signTest(diffs);
        expect(t.pairs).toBe(m);
        expect(t.pValue, `m=${m} k=${k}`).toBe(decimalRound6(2n * cdf, 2n ** BigInt(m)));
      }
    }
  });

  it('drops zeros, and gives p = 1 without a non-zero value', () => {
    expect(signTest([0, 0, 0])).toEqual({ pairs: 0, plus: 0, minus: 0, pValue: 1 });
    expect(signTest([])).toEqual({ pairs: 0, plus: 0, minus: 0, pValue: 1 });
    expect(signTest([1, 1, 1, 1, 1, 1, 0]).pValue).toBe(0.03125);
  });

  it('agrees with exact arithmetic past the exact range (log space, m > 1,000)', () => {
    for (const [m, k] of [
      [1001, 480],
      [1440, 690],
      [2000, 950],
    ] as const) {
      const c = binomialRow(m);
      let cdf = 0n;
      for (let j = 0; j <= k; j++) cdf += c[j] as bigint;
      const t = signTest([...Array(k).fill(1), ...Array(m - k).fill(-1)]);
      expect(t.pValue / decimalRound6(2n * cdf, 2n ** BigInt(m))).toBeCloseTo(1, 5);
    }
  });

  it('stays finite for tens of thousands of cycles', () => {
    const t = signTest([...Array(30_000).fill(1), ...Array(29_000).fill(-1)]);
    expect(t.pValue).toBeGreaterThan(0);
    expect(t.pValue).toBeLessThan(1e-4);
  });
});

/** Samples of one cell ("c") per cycle for providers a and b, cycles 1 minute apart. */
function pairOf(values: readonly [number, number][]): { a: Sample[]; b: Sample[] } {
  const s = (provider: string, i: number, v: number): Sample => ({
    metric: 'm',
    labels: { provider, chain: 'x', region: 'r' },
    t: 60_000 * (i + 1),
    v,
  });
  return { a: values.map(([va], i) => s('a', i, va)), b: values.map(([, vb], i) => s('b', i, vb)) };
}

function verdictOf(values: readonly [number, number][], margin: number, higherIsBetter: boolean) {
  const { a, b } = pairOf(values);
  const p50 = (vs: number[]) => round6(quantileSorted(Float64Array.from(vs).sort(), 0.5));
  const delta = p50(values.map(([x]) => x)) - p50(values.map(([, y]) => y));
  const test = signTest(pairedCycleDiffs(a, b, ['chain']).diffs);
  return { test, ...verdict({ test, delta, margin, higherIsBetter }) };
}

describe('rule 4: the verdict needs a test, a margin and a direction', () => {
  const reasonOf = (v: { reason: TieReason | null }) => v.reason;

  it('one distribution for both providers → not-significant', () => {
    const rand = prng(1);
    const values: [number, number][] = Array.from({ length: 1440 }, () => [
      80 + rand() * 20,
      80 + rand() * 20,
    ]);
    const v = verdictOf(values, 0.5, true);
    expect(v.winner).toBe('tie');
    expect(reasonOf(v)).toBe('not-significant');
  });

  it('a constant 0.1-point shift over 1,440 cycles → p < 0.05 but within-margin', () => {
    const rand = prng(2);
    const values: [number, number][] = Array.from({ length: 1440 }, () => {
      const b = 80 + rand() * 20;
      return [b + 0.1, b];
    });
    const v = verdictOf(values, 0.5, true);
    expect(v.test.pValue).toBeLessThan(0.05);
    expect(v.winner).toBe('tie');
    expect(reasonOf(v)).toBe('within-margin');
  });

  it('b uniform on 80–100, a = b + 0.1 where b ≤ 92, else b − 15 → conflicting', () => {
    const rand = prng(3);
    const values: [number, number][] = Array.from({ length: 1440 }, () => {
      const b = 80 + rand() * 20;
      return [b <= 92 ? b + 0.1 : b - 15, b];
    });
    const v = verdictOf(values, 0.5, true);
    // a's p50 is the lower (worse): b has the better p50, yet most cycles favour a.
    expect(v.test.pValue).toBeLessThan(0.05);
    expect(v.winner).toBe('tie');
    expect(reasonOf(v)).toBe('conflicting');
  });

  it('a clear gap → a winner, in either direction of the benchmark', () => {
    const rand = prng(4);
    const values: [number, number][] = Array.from({ length: 200 }, () => [95 + rand() * 5, 85 + rand() * 5]);
    expect(verdictOf(values, 0.5, true)).toMatchObject({ winner: 'a', reason: null });
    // Lower is better (latency): the same numbers make b the winner.
    expect(verdictOf(values, 2, false)).toMatchObject({ winner: 'b', reason: null });
  });

  it('checks the conditions in order: significance, then margin, then direction', () => {
    const test = { pairs: 10, plus: 2, minus: 8, pValue: 0.109375 };
    expect(verdict({ test, delta: 5, margin: 1, higherIsBetter: true })).toEqual({
      winner: 'tie',
      reason: 'not-significant',
    });
    const sig = { pairs: 20, plus: 2, minus: 18, pValue: 0.000402 };
    expect(verdict({ test: sig, delta: 0.5, margin: 0.5, higherIsBetter: true }).reason).toBe(
      'within-margin',
    );
    expect(verdict({ test: sig, delta: 5, margin: 0.5, higherIsBetter: true }).reason).toBe('conflicting');
    expect(verdict({ test: sig, delta: -5, margin: 0.5, higherIsBetter: true })).toEqual({
      winner: 'b',
      reason: null,
    });
  });
});

describe('rule 3: one paired value per (region, cycle)', () => {
  it('takes the median over the shared cells of a − b, per region and cycle', () => {
    const s = (provider: string, chain: string, region: string, t: number, v: number): Sample => ({
      metric: 'm',
      labels: { provider, chain, region },
      t,
      v,
    });
    const a = [
      s('a', 'x', 'eu', 1, 10),
      s('a', 'y', 'eu', 1, 20),
      s('a', 'z', 'eu', 1, 30),
      s('a', 'x', 'us', 1, 5),
      s('a', 'x', 'eu', 2, 7),
      s('a', 'only-a', 'eu', 3, 1),
    ];
    const b = [
      s('b', 'x', 'eu', 1, 9),
      s('b', 'y', 'eu', 1, 25),
      s('b', 'z', 'eu', 1, 26),
      s('b', 'x', 'us', 1, 6),
      s('b', 'x', 'eu', 2, 7),
    ];
    const { diffs, sharedSamples } = pairedCycleDiffs(a, b, ['chain']);
    // eu@1: median(1, −5, 4) = 1; us@1: −1; eu@2: 0 (a zero, dropped by the test); only-a unpaired.
    expect(diffs.sort((x, y) => x - y)).toEqual([-1, 0, 1]);
    expect(sharedSamples).toBe(5);
    expect(signTest(diffs)).toMatchObject({ pairs: 2, plus: 1, minus: 1, pValue: 1 });
  });
});
