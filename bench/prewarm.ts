/**
 * What the prewarm (src/publication/prewarm.ts) moves off the request path (npm run bench:prewarm).
 * Two publications over two embedded stores holding the same 3 days of demo samples, one with the
 * prewarm; ROUNDS times (default 10): one benchmark's new cycle is appended to both, and once the
 * prewarm's pass is done, every view a request asks for first (test/helpers/every-view.ts: each Stat
 * unfiltered and per value, series 24 h and 7 d, audits, index, llm-context, featured, a compare
 * pair) is asked for on both, one at a time. Prints per-request times (p50, p99, max) and the
 * round's total on each side, and the prewarm's passes. In-process, no HTTP: the figures are the
 * publication's own, on this machine; both sides run in the same process, one after the other.
 */

import { testConfig } from '../src/config.ts';
import type { Sample } from '../src/core/samples.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { specMetrics } from '../src/publication/compute.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { startPrewarm } from '../src/publication/prewarm.ts';
import { createPublication } from '../src/publication/publication.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { everyView } from '../test/helpers/every-view.ts';
import { BENCHMARKS_DIR } from '../test/helpers/fixture.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const MIN = 60_000;
// A fixed clock a little after the data: the views' evaluation points move only with new cycles.
const NOW = Math.floor(Date.now() / (20 * MIN)) * 20 * MIN;

const specs = await loadSpecs(BENCHMARKS_DIR);
const data = buildDataset({ seed: 7, days: 3, end: NOW - 60 * MIN });
const side = async (prewarm: boolean) => {
  const store = await openDuckDbStore({ path: ':memory:' });
  await store.append(data);
  const pub = createPublication({
    specs,
    store,
    config: testConfig({ baseUrl: 'http://bench.test', siteName: 'Citebench' }),
    clock: () => NOW,
  });
  await pub.loadDataValues();
  const passes: number[] = [];
  const pw = prewarm ? startPrewarm(pub, { onPass: (p) => passes.push(p.ms) }) : undefined;
  return { store, pub, pw, passes };
};
const warm = await side(true);
const cold = await side(false);

const trade = specs.find((s) => s.slug === 'token-trade-coverage');
if (!trade) throw new Error('token-trade-coverage is missing');
const pair = [trade.providers[0]?.slug ?? '', trade.providers[1]?.slug ?? ''] as const;
// Both sides have every view computed once before the rounds (and the compare pair asked).
await everyView(cold.pub, specs, pair);
await everyView(warm.pub, specs, pair);
await warm.pw?.prewarmer.idle();

const times = { warm: [] as number[], cold: [] as number[] };
const totals = { warm: [] as number[], cold: [] as number[] };
// The benchmarks holding samples, each with its newest cycle: appended again a minute later each
// round, a new cycle of the same shape.
const rotating: { slug: string; newest: Sample[] }[] = [];
for (const spec of specs) {
  const newest: Sample[] = [];
  for (const metric of specMetrics(spec)) newest.push(...(await cold.store.latest({ metric, at: NOW })));
  if (newest.length > 0) rotating.push({ slug: spec.slug, newest });
}
for (let r = 0; r < ROUNDS; r++) {
  const next = rotating[r % rotating.length];
  if (!next) throw new Error('no benchmark holds samples');
  const fresh = next.newest.map((s) => ({ ...s, t: NOW - 59 * MIN + r * MIN }));
  await cold.store.append(fresh);
  await warm.store.append(fresh);
  await warm.pw?.prewarmer.idle();
  for (const k of ['cold', 'warm'] as const) {
    const t0 = performance.now();
    await everyView(k === 'cold' ? cold.pub : warm.pub, specs, pair, (ms) => times[k].push(ms));
    totals[k].push(performance.now() - t0);
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};
const f = (n: number) => n.toFixed(2);
process.stdout.write(
  `node ${process.version}; ${ROUNDS} rounds (a new cycle of ${rotating.map((b) => b.slug).join(', ')} in turn), ${times.cold.length / ROUNDS} requests per round\n\n` +
    '| after a cycle | request p50 ms | p99 ms | max ms | round total p50 ms |\n| --- | --- | --- | --- | --- |\n' +
    `| without prewarm | ${f(pct(times.cold, 0.5))} | ${f(pct(times.cold, 0.99))} | ${f(Math.max(...times.cold))} | ${f(pct(totals.cold, 0.5))} |\n` +
    `| with prewarm | ${f(pct(times.warm, 0.5))} | ${f(pct(times.warm, 0.99))} | ${f(Math.max(...times.warm))} | ${f(pct(totals.warm, 0.5))} |\n\n` +
    `prewarm passes: ${warm.passes.length}, p50 ${f(pct(warm.passes, 0.5))} ms, max ${f(Math.max(...warm.passes))} ms (off the request path, on the same loop)\n`,
);
warm.pw?.stop();
for (const s of [warm, cold]) {
  s.pub.close();
  await s.store.close();
}
