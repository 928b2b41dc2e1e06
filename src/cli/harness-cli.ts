import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../config.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { demoTruthReader } from '../demo/demo-dexes.ts';
import { openDemoChains } from '../demo/rpc-demo.ts';
import { HarnessConfigError, loadHarnessConfig, simulatorEnv } from '../harness/config.ts';
import { createMemoryStore } from '../harness/memory-store.ts';
import type { CycleReport } from '../harness/report.ts';
import { startHarness } from '../harness/service.ts';
import type { HarnessLog } from '../harness/types.ts';
import { loadSpecs } from '../publication/load-specs.ts';
import type { DemoChain } from '../sim/chains/index.ts';
import { type Simulator, startSimulator } from '../sim/server.ts';
import { openDuckDbStore } from '../store/duckdb-store.ts';
import type { Store } from '../store/sample-store.ts';
import { HARNESS_RUN_USAGE } from './harness-usage.ts';

export interface HarnessCliDeps {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly out?: (s: string) => void;
  readonly err?: (s: string) => void;
  readonly openStore?: (dataDir: string) => Promise<Store>;
  readonly now?: () => number;
  /** Ends a continuous run (besides SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

interface Args {
  benchmark: string;
  providers: string[];
  once: boolean;
  simulate: boolean;
  dryRun: boolean;
  seed: number;
  at?: number;
  dataDir?: string;
}

function parseArgs(argv: readonly string[]): Args | string {
  const a = [...argv];
  if (a[0] === 'harness') a.shift();
  if (a[0] !== 'run') return 'expected "run"';
  a.shift();
  const out: Args = { benchmark: '', providers: [], once: false, simulate: false, dryRun: false, seed: 1 };
  while (a.length > 0) {
    const x = a.shift() as string;
    const value = (): string | undefined => a.shift();
    if (x === '--once') out.once = true;
    else if (x === '--simulate') out.simulate = true;
    else if (x === '--dry-run') out.dryRun = true;
    else if (x === '--provider' || x.startsWith('--provider=')) {
      const v = x.includes('=') ? x.slice(x.indexOf('=') + 1) : value();
      if (!v) return '--provider needs a slug';
      out.providers.push(...v.split(',').filter(Boolean));
    } else if (x === '--seed') {
      const v = Number(value());
      if (!Number.isInteger(v)) return '--seed needs an integer';
      out.seed = v;
    } else if (x === '--data-dir' || x.startsWith('--data-dir=')) {
      const v = x.includes('=') ? x.slice(x.indexOf('=') + 1) : value();
      if (!v) return '--data-dir needs a folder';
      out.dataDir = v;
    } else if (x === '--at') {
      const v = Date.parse(value() ?? '');
      if (Number.isNaN(v)) return '--at needs an ISO date-time';
      out.at = v;
    } else if (x.startsWith('-')) return `unknown option ${x}`;
    else if (!out.benchmark) out.benchmark = x;
    else return `unexpected argument ${x}`;
  }
  if (!out.benchmark) return 'missing <benchmark>';
  return out;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (/^[\d.,%-]+$/.test(c) && i > 0 ? c.padStart(w[i] ?? 0) : c.padEnd(w[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)].join('\n');
}

/** A readable summary of one cycle. */
export function formatReport(r: CycleReport): string {
  const head = `${r.benchmark} @ ${new Date(r.at).toISOString()}  (${(r.durationMs / 1000).toFixed(2)} s, ${r.samplesWritten} samples${r.aborted ? ', ABORTED at deadline' : ''})`;
  const err = (f?: { type: string; status?: number; message: string }) =>
    f ? `${f.type}${f.status ? ` ${f.status}` : ''}: ${f.message.slice(0, 70)}` : '';
  if (!r.cells) {
    const rows = r.providers.map((p) => [
      p.provider,
      p.status,
      p.count === undefined ? '' : String(p.count),
      p.durationMs ? String(Math.round(p.durationMs)) : '',
      err(p.failure),
    ]);
    return `${head}\n${table(['provider', 'status', 'networks', 'ms', 'error'], rows)}`;
  }
  const rows: string[][] = [];
  for (const c of r.cells) {
    for (const p of c.providers) {
      rows.push([
        `${c.chain}/${c.token}`,
        p.provider,
        p.status,
        p.count === undefined ? '' : String(p.count),
        p.capturePct === undefined ? '' : p.capturePct.toFixed(1),
        c.unionCount === undefined ? '' : String(c.unionCount),
        !c.truth ? '' : 'count' in c.truth ? String(c.truth.count) : c.truth.unavailable,
        p.recallPct === undefined ? '' : p.recallPct.toFixed(1),
        p.unmatched === undefined ? '' : String(p.unmatched),
        p.phantoms === undefined ? '' : String(p.phantoms),
        p.pages === undefined ? '' : String(p.pages),
        p.capped ? 'capped' : '',
        err(p.failure),
      ]);
    }
  }
  const skipped = r.providers.filter((p) => p.status === 'not_configured' || p.status === 'unsupported');
  const unresponsive = Object.entries(r.unresponsive ?? {}).filter(([, v]) => v);
  return [
    head,
    table(
      [
        'cell',
        'provider',
        'status',
        'trades',
        'capture%',
        'union',
        'truth',
        'recall%',
        'unmatched',
        'phantoms',
        'pages',
        'cap',
        'error',
      ],
      rows,
    ),
    ...(skipped.length ? [`skipped: ${skipped.map((p) => `${p.provider} (${p.status})`).join(', ')}`] : []),
    ...(unresponsive.length ? [`unresponsive: ${unresponsive.map(([p]) => p).join(', ')}`] : []),
  ].join('\n');
}

/**
 * The folder a path names once symlinks are followed, so an alias of DATA_DIR is DATA_DIR. A path
 * that does not exist yet goes through its nearest existing ancestor's real path (the store creates
 * the rest), so a future DATA_DIR reached through a symlinked parent is caught as well. The path is
 * not normalised first: `link/..` is the link target's parent on disk, not the link's folder.
 */
async function physicalPath(p: string): Promise<string> {
  const rest: string[] = [];
  let cur = isAbsolute(p) ? p : `${process.cwd()}${sep}${p}`;
  for (;;) {
    try {
      return resolve(await realpath(cur), ...rest);
    } catch (e) {
      const parent = dirname(cur);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || parent === cur) throw e;
      rest.unshift(basename(cur));
      cur = parent;
    }
  }
}

/** Whether two paths name the same folder on disk; a message when one cannot be resolved. */
async function sameFolder(dataDir: string, live: string): Promise<boolean | string> {
  const resolved: string[] = [];
  for (const [what, p] of [
    ['--data-dir', dataDir],
    ['DATA_DIR', live],
  ] as const) {
    try {
      resolved.push(await physicalPath(p));
    } catch (e) {
      return `cannot resolve ${what} ${p}: ${(e as Error).message}`;
    }
  }
  return resolved[0] === resolved[1];
}

/** `harness run <benchmark> [--provider x] [--once] [--simulate]`: run harness cycles by hand. */
export async function runHarnessCli(argv: readonly string[], deps: HarnessCliDeps = {}): Promise<number> {
  const out = deps.out ?? ((s: string) => process.stdout.write(`${s}\n`));
  const err = deps.err ?? ((s: string) => process.stderr.write(`${s}\n`));
  if (argv.includes('--help') || argv.includes('-h')) {
    out(HARNESS_RUN_USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    err(`harness: ${args}\n${HARNESS_RUN_USAGE}`);
    return 2;
  }
  let env = deps.env ?? process.env;
  let specs: BenchmarkSpec[];
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
    specs = await loadSpecs(config.benchmarksDir);
  } catch (e) {
    // Each bad variable one line, as start-up names them.
    if (e instanceof ConfigError) {
      for (const p of e.problems) err(`harness: ${p}`);
      return 2;
    }
    err(`harness: ${(e as Error).message}`);
    return 1;
  }
  const spec = specs.find((s) => s.slug === args.benchmark);
  if (!spec) {
    err(`harness: unknown benchmark "${args.benchmark}" (known: ${specs.map((s) => s.slug).join(', ')})`);
    return 2;
  }
  const unknown = args.providers.filter((p) => !spec.providers.some((x) => x.slug === p));
  if (unknown.length > 0) {
    err(
      `harness: ${unknown.join(', ')} not measured by ${spec.slug} (${spec.providers.map((p) => p.slug).join(', ')})`,
    );
    return 2;
  }

  // A run restricted to some providers scores them against each other only (a provider alone on a
  // cell is 100% by construction) and would mark the slot done: it never writes into the live
  // database. It prints what it measured, or writes to another folder when asked to.
  const dataDir = args.dataDir ?? config.dataDir;
  const partial = args.providers.length > 0;
  if (partial && args.dataDir !== undefined) {
    const same = await sameFolder(args.dataDir, config.dataDir);
    if (typeof same === 'string') {
      err(`harness: ${same}`);
      return 2;
    }
    if (same) {
      err(
        `harness: --provider never writes into the live DATA_DIR (${config.dataDir}); give --data-dir another folder`,
      );
      return 2;
    }
  }
  const dryRun = args.simulate || args.dryRun || (partial && args.dataDir === undefined);
  if (partial && dryRun && !args.simulate && !args.dryRun) {
    err(`partial run (${args.providers.join(', ')}): printing results, nothing written`);
  }

  let sim: Simulator | null = null;
  let store: Store | null = null;
  let chains: DemoChain[] = [];
  try {
    if (args.simulate) {
      // Trade cells on EVM chains are read from demo chains (100 minutes of history up to now, in
      // memory: the latest closed slot's window lies on them), as in the demo: the simulated
      // providers answer from them and truth is read there.
      if (spec.family === 'trade-capture') {
        const now = deps.now?.() ?? Date.now();
        chains = await openDemoChains({
          seed: args.seed,
          now,
          log: () => {},
          backfillMs: 0,
          chainLeadMs: 100 * 60_000,
        });
        await Promise.all(chains.map((c) => c.buildTo(now)));
      }
      sim = await startSimulator({
        seed: args.seed,
        chains: chains.map((c) => ({ chain: c.chain, url: c.node.url })),
      });
      env = { ...env, ...simulatorEnv(sim.baseUrls, sim.keys) };
      err(`simulated providers at ${sim.url} (seed ${args.seed})`);
    }
    const harnessConfig = loadHarnessConfig(env);
    store = dryRun
      ? createMemoryStore()
      : await (deps.openStore?.(dataDir) ??
          openDuckDbStore({
            path: join(dataDir, 'citebench.duckdb'),
            memoryLimit: config.duckdbMemoryLimit,
          }));
    const log: HarnessLog = (level, msg) => {
      if (level !== 'debug' && level !== 'info') err(`${level}: ${msg}`);
    };
    const harness = startHarness({
      store,
      specs: [spec],
      metrics: new Registry(),
      harnessConfig,
      log,
      autoStart: !args.once,
      simulated: args.simulate,
      ...(chains.length > 0 ? { truth: demoTruthReader(chains) } : {}),
      ...(args.providers.length ? { onlyProviders: args.providers } : {}),
      onCell: (_b, c, done, total) => err(`  [${done}/${total}] ${c.chain}/${c.token}`),
      onCycle: (r) => {
        if (!args.once) out(formatReport(r));
      },
    });
    if (args.once) {
      const now = deps.now?.() ?? Date.now();
      const cadence = durationMs(spec.cadence);
      const at = args.at ?? Math.floor(now / cadence) * cadence;
      const report = await harness.runCycle(spec.slug, at);
      await harness.stop();
      out(formatReport(report));
      const measured = report.providers.filter(
        (p) => p.status !== 'not_configured' && p.status !== 'unsupported',
      );
      return measured.some((p) => p.status === 'ok' || p.status === 'zero') ? 0 : 1;
    }
    err(`running ${spec.slug} every ${spec.cadence} (Ctrl-C to stop)`);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
      deps.signal?.addEventListener('abort', done, { once: true });
    });
    err('stopping: waiting for the running cycle');
    await harness.stop();
    return 0;
  } catch (e) {
    if (e instanceof HarnessConfigError) {
      for (const p of e.problems) err(`harness: ${p}`);
      return 2;
    }
    err(`harness: ${(e as Error).stack ?? String(e)}`);
    return 1;
  } finally {
    await store?.close();
    await sim?.close();
    await Promise.all(chains.map((c) => c.stop()));
  }
}
