/**
 * The window derivation's own cost, without the store (issue 24): for 1,000 specs shaped like the
 * window catalogue of bench/catalogue.ts (20 providers, one cell, 72 cycles of 20 minutes), the
 * time of the rows (windowRows + rankRows: quantiles and their intervals) and of the leader tests
 * (withLeaderTests: the paired sign test of every ranked row against the leader). Five rounds on
 * the same samples; the median round is printed.
 *
 * Run: npx tsx bench/window-derivation.ts
 */
import { cpus } from 'node:os';
import { withLeaderTests } from '../src/core/leader-tests.ts';
import { prng } from '../src/core/prng.ts';
import { registerSyntheticProviders } from '../src/core/providers.ts';
import { rankRows } from '../src/core/rank-rows.ts';
import { windowRows } from '../src/core/rows.ts';
import type { Sample } from '../src/core/samples.ts';

const SPECS = 1000;
const CYCLES = 72;
const providers = registerSyntheticProviders(20)
  .slice(0, 20)
  .map((p) => ({ slug: p.slug, endpoint: 'none' }));
const rand = prng(1);
// One labels object per provider, as a store hands every sample of a series the same one.
const labels = providers.map((p) => ({ provider: p.slug, cell: 'c1' }));
const specs: Sample[][] = [];
for (let i = 0; i < SPECS; i++) {
  const values: Sample[] = [];
  for (let c = 0; c < CYCLES; c++) {
    for (let j = 0; j < providers.length; j++) {
      const v = Math.round((20 + j * 5 + 60 * rand() ** 3) * 1000) / 1000;
      values.push({ metric: 'm', labels: labels[j] as Sample['labels'], t: 1.8e12 + c * 1_200_000, v });
    }
  }
  specs.push(values);
}

const rounds: { rows: number; tests: number }[] = [];
for (let round = 0; round < 5; round++) {
  let rows = 0;
  let tests = 0;
  for (const values of specs) {
    const t0 = performance.now();
    const ranked = rankRows(windowRows(providers, { cellLabels: ['cell'], values, probes: [] }, {}), false);
    const t1 = performance.now();
    withLeaderTests(ranked, { values, cellLabels: ['cell'], margin: 2, higherIsBetter: false });
    tests += performance.now() - t1;
    rows += t1 - t0;
  }
  rounds.push({ rows, tests });
}
const median = [...rounds].sort((a, b) => a.rows + a.tests - (b.rows + b.tests))[2] ?? { rows: 0, tests: 0 };
console.log(
  `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, node ${process.version}: ${SPECS} specs × ${providers.length} providers × ${CYCLES} cycles; median of 5 rounds: rows ${median.rows.toFixed(0)} ms, leader tests ${median.tests.toFixed(0)} ms`,
);
