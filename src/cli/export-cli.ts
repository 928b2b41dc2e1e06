import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { DAY_MS, parseDay } from '../core/dates.ts';
import type { DatasetExtension } from '../publication/dataset-files.ts';
import { loadSpecs } from '../publication/load-specs.ts';
import { createPublication } from '../publication/publication.ts';
import { openDuckDbStore } from '../store/duckdb-store.ts';
import type { Store } from '../store/sample-store.ts';
import { EXPORT_USAGE } from './export-usage.ts';

export { EXPORT_USAGE };

export interface ExportCliDeps {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly out?: (s: string) => void;
  readonly err?: (s: string) => void;
  readonly openStore?: (dataDir: string) => Promise<Store>;
  readonly now?: () => number;
  /** True when stderr is a terminal: the progress bar redraws one line. */
  readonly tty?: boolean;
}

interface Args {
  from: string;
  to: string;
  formats: DatasetExtension[];
  out: string;
  dataDir?: string;
}

function parseArgs(argv: readonly string[]): Args | string {
  const a = [...argv];
  const got: Record<string, string> = {};
  while (a.length > 0) {
    const x = a.shift() as string;
    const m = /^--(from|to|format|out|data-dir)(?:=(.*))?$/.exec(x);
    if (!m?.[1]) return `unknown argument "${x}"`;
    const v = m[2] ?? a.shift();
    if (v === undefined || v === '') return `--${m[1]} needs a value`;
    got[m[1]] = v;
  }
  if (!got.from || !got.to || !got.out) return '--from, --to and --out are required';
  for (const k of ['from', 'to'] as const) {
    const d = parseDay(got[k] as string);
    if (!d.ok) return `--${k}: ${d.message}`;
  }
  if (got.from > got.to) return '--from is after --to';
  const f = got.format;
  if (f !== undefined && f !== 'parquet' && f !== 'csv') return '--format is parquet or csv';
  return {
    from: got.from,
    to: got.to,
    formats: f === undefined ? ['parquet', 'csv'] : [f],
    out: got.out,
    ...(got['data-dir'] ? { dataDir: got['data-dir'] } : {}),
  };
}

function progress(tty: boolean, err: (s: string) => void) {
  let last = -1;
  return (done: number, total: number, day: string) => {
    const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (tty) {
      const bar = '#'.repeat(Math.floor(pct / 4)).padEnd(25, '.');
      err(`\rexporting: [${bar}] ${done}/${total} days ${day}`);
      if (done === total) err('\n');
    } else if (pct >= last + 10 || done === total) {
      last = pct;
      err(`exporting: ${done}/${total} days (${pct}%)\n`);
    }
  };
}

/** `citebench export`: returns the exit code. */
export async function runExportCli(argv: readonly string[], deps: ExportCliDeps = {}): Promise<number> {
  const out = deps.out ?? ((s: string) => process.stdout.write(s));
  const err = deps.err ?? ((s: string) => process.stderr.write(s));
  // Asked for help: the usage on stdout, success, nothing opened (as every other command).
  if (argv.includes('--help') || argv.includes('-h')) {
    out(EXPORT_USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    err(`${args}\n${EXPORT_USAGE}`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(deps.env ?? process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      // Each bad variable one line, as start-up names them.
      err(e.problems.map((p) => `${p}\n`).join(''));
      return 2;
    }
    throw e;
  }
  const dataDir = resolve(args.dataDir ?? config.dataDir);
  const open =
    deps.openStore ??
    ((dir: string) =>
      openDuckDbStore({ path: join(dir, 'citebench.duckdb'), memoryLimit: config.duckdbMemoryLimit }));
  let store: Store;
  try {
    store = await open(dataDir);
  } catch (e) {
    err(`cannot open the database in ${dataDir}: ${(e as Error).message}\n`);
    return 1;
  }
  const publication = createPublication({
    specs: await loadSpecs(config.benchmarksDir),
    store,
    config,
    ...(deps.now ? { clock: deps.now } : {}),
  });
  try {
    await mkdir(args.out, { recursive: true });
    const start = (parseDay(args.from) as { start: number }).start;
    const end = (parseDay(args.to) as { start: number }).start;
    const total = Math.round((end - start) / DAY_MS) + 1;
    const bar = progress(deps.tty ?? process.stderr.isTTY === true, err);
    let written = 0;
    for (let i = 0; i < total; i++) {
      const day = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
      for (const ext of args.formats) {
        const r = await publication.dataset.file(day, ext);
        if (r.kind !== 'ok') continue;
        await writeFile(join(args.out, `citebench-${day}.${ext}`), r.file.body);
        written++;
      }
      bar(i + 1, total, day);
    }
    out(`${written} files written to ${resolve(args.out)}\n`);
    return 0;
  } finally {
    publication.close();
    await store.close();
  }
}
