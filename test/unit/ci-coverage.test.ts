import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { prng } from '../../src/core/prng.ts';
import { quantileInterval } from '../../src/core/uncertainty.ts';

/** A standard normal draw from two uniforms (Box-Muller). */
function normal(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/**
 * How often the published p50 interval covers the true median (0: every draw is symmetric about it)
 * over `reps` windows of `slots` slots × `cells` cells, each sample a per-slot effect (shared by the
 * slot's cells, sd `slotSd`) plus its own noise (sd 1).
 */
function coverage(reps: number, slots: number, cells: number, slotSd: number, seed: number): number {
  const u = prng(seed);
  let covered = 0;
  for (let r = 0; r < reps; r++) {
    const xs: number[] = [];
    for (let s = 0; s < slots; s++) {
      const effect = slotSd * normal(u);
      for (let c = 0; c < cells; c++) xs.push(effect + normal(u));
    }
    xs.sort((a, b) => a - b);
    const ci = quantileInterval(xs, 0.5);
    if (ci && ci[0] <= 0 && ci[1] >= 0) covered++;
  }
  return covered / reps;
}

describe('the p50 interval says what its coverage assumes', () => {
  it('covers at least 95% when samples are independent, and less under a per-slot effect (hence "if samples were independent")', () => {
    // A day of 15-minute slots of the rpc benchmarks' shape: 15 cells a slot.
    expect(coverage(1000, 96, 15, 0, 7)).toBeGreaterThanOrEqual(0.94);
    // The cells of a slot share the provider's state (intra-slot correlation 0.5): far below 95%.
    expect(coverage(1000, 96, 15, 1, 11)).toBeLessThan(0.8);
  });
});

describe('the coverage claim is conditional wherever it is published', () => {
  it('every "95% coverage" in the methodology, the API schemas, the pages, the MCP tools and the Markdown says "if samples were independent"', async () => {
    const root = new URL('../../', import.meta.url);
    const files = [
      ...(await readdir(new URL('benchmarks/', root)))
        .filter((f) => f.endsWith('.yml'))
        .map((f) => `benchmarks/${f}`),
      'src/core/api-schemas-stat.ts',
      'src/core/api-schemas-compare.ts',
      'src/core/markdown.ts',
      'src/pages/benchmark-page.ts',
      'src/mcp/tools/get-benchmark.ts',
    ];
    let claims = 0;
    for (const f of files) {
      const text = await readFile(new URL(f, root), 'utf8');
      for (const m of text.matchAll(/95% coverage(.{0,30})/g)) {
        claims++;
        expect(m[1], f).toMatch(/^ if samples were independent/);
      }
    }
    expect(claims).toBeGreaterThanOrEqual(9);
  });
});
