/**
 * Cold-view cost of the largest live views, in process, against one on-disk DuckDB store: 48 h of
 * the json-rpc family at its real cadence (test/helpers/rpc-dataset.ts: every minute, 3 regions, 8
 * providers, 5 methods; ~2.3M samples) beside 3 days of the demo dataset (trade capture, network
 * coverage). A live Stat reads 48 h: its sparkline's first point has its own 24 h window, so 48 h
 * is what a service that has run two days reads.
 *
 * Each measured view is computed where no view is cached: a distinct filter combination, or the
 * unfiltered view on a fresh publication over the same store (its evaluation point read first, as
 * a running service has it). Prints per group the median and p95 over its views, of wall time and
 * of the process's CPU time (user + system) while it was computed: on a machine shared with other
 * work the wall time includes waiting for a core, the CPU time much less of it.
 *
 *   npx tsx bench/cold-view.ts
 *
 * COLD_VIEW_DIR=<dir>: the store is kept there and reused by the next run (a before/after
 * comparison reads the very same file; written once, ~1-2 min). COLD_VIEW_RPC_HOURS (48): hours of
 * json-rpc slots written (24 is bench/rpc-day.ts's day: the sparkline's first points then read
 * nothing). COLD_VIEW_ROUNDS (7): fresh publications per unfiltered view. COLD_VIEW_ONLY=<group>:
 * one group only (for --cpu-prof).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../src/config.ts';
import type { Filters } from '../src/core/api-schemas.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { createPublication, type Publication } from '../src/publication/publication.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { RPC_REGIONS, writeRpcSlots } from '../test/helpers/rpc-dataset.ts';

/** 2026-11-20T12:00:00Z, minute-aligned: the store's newest slot and the views' evaluation point. */
const END = Date.UTC(2026, 10, 20, 12, 0, 0);
const RPC_HOURS = Number(process.env.COLD_VIEW_RPC_HOURS ?? 48);
const ROUNDS = Number(process.env.COLD_VIEW_ROUNDS ?? 7);
const ONLY = process.env.COLD_VIEW_ONLY;

const specs = await loadSpecs(join(import.meta.dirname, '../benchmarks'));
const keep = process.env.COLD_VIEW_DIR;
const dir = keep ?? (await mkdtemp(join(tmpdir(), 'citebench-cold-view-')));
await mkdir(dir, { recursive: true });
const dbPath = join(dir, 'citebench.duckdb');

if (!existsSync(dbPath)) {
  const t0 = performance.now();
  const store = await openDuckDbStore({ path: dbPath });
  await store.append(buildDataset({ seed: 1, days: 3, end: END }));
  const slots = RPC_HOURS * 60;
  const written = await writeRpcSlots(specs, END - (slots - 1) * 60_000, slots, (s) => store.append(s));
  await store.close();
  process.stdout.write(
    `store written: ${written.toLocaleString('en-US')} json-rpc samples and the demo dataset in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
  );
}

const store = await openDuckDbStore({ path: dbPath });
const clock = { now: END };
const fresh = async (): Promise<Publication> => {
  const pub = createPublication({
    specs,
    store,
    config: testConfig({ baseUrl: 'http://bench.test' }),
    clock: () => clock.now,
  });
  // What a running service knows before a request: the newest sample times (the points), and that
  // the data is simulated (finding it later would drop every view computed before).
  await pub.points.ready();
  await pub.originsChecked();
  return pub;
};

type View = { readonly slug: string; readonly filters: Filters | null };
const pairs = <A, B>(as: readonly A[], bs: readonly B[]) => as.flatMap((a) => bs.map((b) => [a, b] as const));
const RPC_CHAINS = ['ethereum', 'bsc', 'base'];
const RPC_KINDS = ['block-number', 'balance', 'call', 'logs', 'block'];
const TRADE_CHAINS = ['solana', 'ethereum', 'bsc', 'base', 'stellar'];

const groups: { readonly name: string; readonly views: readonly View[] }[] = [
  {
    name: 'rpc-latency',
    views: Array.from({ length: ROUNDS }, () => ({ slug: 'rpc-latency', filters: null })),
  },
  {
    name: 'rpc-latency, one filter',
    views: [
      ...RPC_REGIONS.map((region) => ({ region })),
      ...RPC_CHAINS.map((chain) => ({ chain })),
      ...RPC_KINDS.map((kind) => ({ kind })),
    ].map((filters) => ({ slug: 'rpc-latency', filters })),
  },
  {
    name: 'rpc-latency, two filters',
    views: [
      ...pairs(RPC_CHAINS, RPC_KINDS).map(([chain, kind]) => ({ chain, kind })),
      ...pairs(RPC_REGIONS, RPC_KINDS).map(([region, kind]) => ({ region, kind })),
      ...pairs(RPC_REGIONS, RPC_CHAINS).map(([region, chain]) => ({ region, chain })),
    ].map((filters) => ({ slug: 'rpc-latency', filters })),
  },
  {
    name: 'rpc-head-lag',
    views: Array.from({ length: ROUNDS }, () => ({ slug: 'rpc-head-lag', filters: null })),
  },
  {
    name: 'rpc-head-lag, one filter',
    views: [...RPC_REGIONS.map((region) => ({ region })), ...RPC_CHAINS.map((chain) => ({ chain }))].map(
      (filters) => ({ slug: 'rpc-head-lag', filters }),
    ),
  },
  {
    name: 'token-trade-coverage',
    views: Array.from({ length: ROUNDS }, () => ({ slug: 'token-trade-coverage', filters: null })),
  },
  {
    name: 'token-trade-coverage, chain',
    views: TRADE_CHAINS.map((chain) => ({ slug: 'token-trade-coverage', filters: { chain } })),
  },
];

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
};

process.stdout.write(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}\n`,
);
// One Stat first, so module-level caches (labels-keyed cell ids) are as warm as a running service's.
await (await fresh()).stat('network-coverage', null);
for (const g of groups) {
  if (ONLY !== undefined && g.name !== ONLY) continue;
  const times: number[] = [];
  const cpu: number[] = [];
  let pub = await fresh();
  for (const v of g.views) {
    // An unfiltered view repeats: each on a fresh publication, so none is cached.
    if (v.filters === null) pub = await fresh();
    const t = performance.now();
    const c = process.cpuUsage();
    const stat = await pub.stat(v.slug, v.filters);
    times.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    if (stat.value.rankings.length === 0) throw new Error(`${v.slug} ${JSON.stringify(v.filters)}: no rows`);
  }
  const ms = (x: number) => x.toFixed(0).padStart(5);
  process.stdout.write(
    `${g.name.padEnd(30)} ${String(times.length).padStart(3)} cold views: median ${ms(quantile(times, 0.5))} ms, p95 ${ms(quantile(times, 0.95))} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}); CPU median ${ms(quantile(cpu, 0.5))} ms, p95 ${ms(quantile(cpu, 0.95))} ms\n`,
  );
}
await store.close();
if (keep === undefined) await rm(dir, { recursive: true, force: true });
