/**
 * Memory of building one day's open dataset (Parquet + CSV) from a catalogue store
 * (bench/catalogue.ts), two ways, each in its own child process so neither inherits the other's
 * heap:
 *  - old: every sample of the day read into one array (as DatasetPublisher did), then
 *    writeDatasetFiles(array);
 *  - new: DatasetPublisher.build, which hands DuckDB one metric's samples at a time.
 * Reports RSS and heap after opening the store (before), the peak RSS (the kernel's maxRSS) and
 * the peak heapUsed (sampled every 10 ms), and RSS and heap after the build (after a GC), and checks
 * that both ways give the same bytes.
 *
 * Run: npx tsx bench/catalogue.ts --dir /tmp/cat --n 1000 --hours 48   (a full UTC day yesterday)
 *      node --expose-gc --import tsx bench/dataset-day-memory.ts --dir /tmp/cat [--day YYYY-MM-DD]
 *      [--providers 20]
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { DAY_MS, dayStart, parseDay } from '../src/core/dates.ts';
import { registerSyntheticProviders } from '../src/core/providers.ts';
import type { Sample } from '../src/core/samples.ts';
import { DatasetPublisher } from '../src/publication/dataset.ts';
import { type DatasetFiles, writeDatasetFiles } from '../src/publication/dataset-files.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { openStore } from '../src/store/open-store.ts';

const MB = 1024 * 1024;
const mb = (n: number) => Math.round(n / MB);

interface Result {
  readonly mode: 'old' | 'new';
  readonly rows: number;
  readonly sha256: { readonly parquet: string; readonly csv: string };
  readonly parquetBytes: number;
  readonly csvBytes: number;
  readonly ms: number;
  readonly before: { readonly rssMB: number; readonly heapMB: number };
  readonly peak: { readonly rssMB: number; readonly heapMB: number };
  readonly after: { readonly rssMB: number; readonly heapMB: number };
}

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    day: { type: 'string' },
    providers: { type: 'string', default: '20' },
    mode: { type: 'string' },
  },
});
if (!values.dir) {
  process.stderr.write(
    'usage: node --expose-gc --import tsx bench/dataset-day-memory.ts --dir DIR [--day YYYY-MM-DD]\n',
  );
  process.exit(2);
}
const dir = values.dir;
const day = values.day ?? new Date(dayStart(Date.now()) - DAY_MS).toISOString().slice(0, 10);

async function measure(mode: 'old' | 'new'): Promise<Result> {
  const parsed = parseDay(day);
  if (!parsed.ok) throw new Error(parsed.message);
  registerSyntheticProviders(Number(values.providers));
  const specs = await loadSpecs(join(dir, 'benchmarks'));
  // The service's own limit (DUCKDB_MEMORY_LIMIT's default).
  const store = await openStore(
    { backend: 'embedded' },
    { dataDir: join(dir, 'data'), duckdbMemoryLimit: '256MB' },
  );
  const publisher = new DatasetPublisher({
    store,
    specs,
    site: () => {
      throw new Error('not used');
    },
    clock: Date.now,
    checkDay: () => Promise.reject(new Error('not used')),
    firstDay: () => Promise.resolve(null),
    frozenIndexSite: () => Promise.resolve(null),
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  try {
    gc();
    const m0 = process.memoryUsage();
    let peakHeap = m0.heapUsed;
    const timer = setInterval(() => {
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }, 10);
    const t0 = performance.now();
    let files: DatasetFiles;
    if (mode === 'old') {
      // As DatasetPublisher.samplesOf + build did before: the whole day as one array, then the files.
      const all: Sample[] = [];
      for await (const batch of publisher.samplesOf(parsed.start)) for (const s of batch) all.push(s);
      files = await writeDatasetFiles(all);
    } else {
      files = await publisher.build(parsed.start);
    }
    const ms = performance.now() - t0;
    clearInterval(timer);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    gc();
    const m1 = process.memoryUsage();
    return {
      mode,
      rows: files.rows,
      sha256: files.sha256,
      parquetBytes: files.parquet.length,
      csvBytes: files.csv.length,
      ms: Math.round(ms),
      before: { rssMB: mb(m0.rss), heapMB: mb(m0.heapUsed) },
      peak: { rssMB: mb(peakRss), heapMB: mb(peakHeap) },
      after: { rssMB: mb(m1.rss), heapMB: mb(m1.heapUsed) },
    };
  } finally {
    publisher.close();
    await store.close();
  }
}

if (values.mode === 'old' || values.mode === 'new') {
  process.stdout.write(`${JSON.stringify(await measure(values.mode))}\n`);
} else {
  // One child per way, one after the other (DuckDB allows one process on the file).
  const run = async (mode: 'old' | 'new'): Promise<Result> => {
    const args = ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, '--dir', dir];
    args.push('--day', day, '--providers', String(values.providers), '--mode', mode);
    const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * MB });
    return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Result;
  };
  const results = [await run('old'), await run('new')];
  process.stdout.write(`day ${day} of ${dir}\n`);
  for (const r of results) {
    process.stdout.write(
      `${r.mode}: ${r.rows} rows in ${(r.ms / 1000).toFixed(1)} s, parquet ${mb(r.parquetBytes)} MB, csv ${mb(r.csvBytes)} MB; ` +
        `RSS ${r.before.rssMB} → peak ${r.peak.rssMB} → after ${r.after.rssMB} MB; ` +
        `heap ${r.before.heapMB} → peak ${r.peak.heapMB} → after ${r.after.heapMB} MB\n`,
    );
  }
  const [a, b] = results as [Result, Result];
  const same = a.rows === b.rows && a.sha256.parquet === b.sha256.parquet && a.sha256.csv === b.sha256.csv;
  process.stdout.write(
    `bytes ${same ? 'identical' : 'DIFFER'}: parquet ${b.sha256.parquet}, csv ${b.sha256.csv}\n`,
  );
  if (!same) process.exitCode = 1;
}
