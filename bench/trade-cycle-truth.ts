/**
 * The trade cycle with ground truth, at demo size (issue 23, bench): the 10 reference cells, the
 * three trade providers, the three demo chains built for 70 min (their Uniswap V2 swaps at the
 * model's rates), one cycle at the chains' head. Three set-ups, each run ROUNDS times, interleaved,
 * each round on a fresh store:
 * - model: the simulator without chains, no truth (the cycle before this issue);
 * - chain: the simulator answering EVM cells from the chains, no truth read;
 * - truth: the same, plus each EVM cell's truth read from the chains' nodes (the demo's cycle).
 * Targets: truth within the 30-minute cadence and <= 2x the model cycle. Medians, ms.
 * Run: npx tsx bench/trade-cycle-truth.ts [--rounds 5]
 */
import { Registry } from 'prom-client';
import { demoTruthReader } from '../src/demo/demo-dexes.ts';
import { openDemoChains } from '../src/demo/rpc-demo.ts';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { startHarness } from '../src/harness/service.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { type Simulator, startSimulator } from '../src/sim/server.ts';

const i = process.argv.indexOf('--rounds');
const ROUNDS = i >= 0 ? Number(process.argv[i + 1]) : 5;
const SEED = 42;
const HALF_HOUR = 1_800_000;
const NOW = Math.floor(Date.now() / HALF_HOUR) * HALF_HOUR;
const specs = (await loadSpecs(new URL('../benchmarks', import.meta.url).pathname)).filter(
  (s) => s.family === 'trade-capture',
);

const t0 = performance.now();
const chains = await openDemoChains({
  seed: SEED,
  now: NOW,
  log: () => {},
  backfillMs: HALF_HOUR * 2,
  chainLeadMs: 10 * 60_000,
});
await Promise.all(chains.map((c) => c.buildTo(NOW)));
console.log(
  `chains built to NOW (${chains.map((c) => `${c.chain} ${c.head().number}`).join(', ')}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const model = await startSimulator({ seed: SEED, latencyMs: 0 });
const onChain = await startSimulator({
  seed: SEED,
  latencyMs: 0,
  chains: chains.map((c) => ({ chain: c.chain, url: c.node.url })),
});

let truthCounts: number[] = [];
async function cycle(sim: Simulator, truth: boolean): Promise<number> {
  const store = createMemoryStore();
  const h = startHarness({
    store,
    specs,
    metrics: new Registry(),
    harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys)),
    autoStart: false,
    sleep: async () => {},
    simulated: true,
    ...(truth ? { truth: demoTruthReader(chains) } : {}),
  });
  const start = performance.now();
  const report = await h.runCycle('token-trade-coverage', NOW);
  const ms = performance.now() - start;
  await h.stop();
  if (truth) {
    // The bench measures truth only if the EVM cells had it.
    const counts = await store.select({ metric: 'token_trade_truth_count', after: NOW - 1, until: NOW });
    if (counts.length !== 6) throw new Error(`expected truth on 6 EVM cells, got ${counts.length}`);
    truthCounts = counts.map((s) => s.v);
  }
  if (report.aborted) throw new Error('cycle aborted');
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};
const times: Record<'model' | 'chain' | 'truth', number[]> = { model: [], chain: [], truth: [] };
// A warm-up of each, not counted (module loading, first index sync of the chain simulator).
await cycle(model, false);
await cycle(onChain, true);
for (let r = 0; r < ROUNDS; r++) {
  times.model.push(await cycle(model, false));
  times.chain.push(await cycle(onChain, false));
  times.truth.push(await cycle(onChain, true));
}
const m = median(times.model);
const c = median(times.chain);
const t = median(times.truth);
console.log(
  `rounds ${ROUNDS}, medians: model ${m.toFixed(0)} ms, chain ${c.toFixed(0)} ms, chain+truth ${t.toFixed(0)} ms`,
);
console.log(`|T_fin| of the 6 EVM cells: ${truthCounts.join(', ')}`);
console.log(
  `truth cycle / model cycle = ${(t / m).toFixed(2)}x (target <= 2x); / cadence = ${((t / HALF_HOUR) * 100).toFixed(3)}% of 30 min`,
);
await model.close();
await onChain.close();
await Promise.all(chains.map((x) => x.stop()));
