import { Agent, request } from 'node:http';
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { createLogger } from '../src/log.ts';
import { createService } from '../src/service.ts';
import { machine, machineLine, markdownTable, writeResults } from './wrk-lib.ts';

const CYCLES = Number(process.env.FRESHNESS_CYCLES ?? 100);
const TARGET_MS = 100;
/** A cycle that has not seen its write after this long is recorded as a timeout. */
const GIVE_UP_MS = 5_000;

interface Answer {
  readonly status: number;
  readonly etag: string;
  readonly body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          etag: String(res.headers.etag ?? ''),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

// Bounded: a stuck cycle gives up after 5 s, and the whole run after this.
setTimeout(
  () => {
    process.stderr.write('sample-to-api: did not finish in time\n');
    process.exit(1);
  },
  CYCLES * GIVE_UP_MS + 60_000,
).unref();

const m = machine();
const svc = await createService({
  config: testConfig({ port: 0, logLevel: 'silent' }),
  log: createLogger('silent'),
  inMemory: true,
  clock: Date.now,
});
interface Cycle {
  /** From the commit to the first answer whose body differs from the one before the write. */
  readonly changedMs: number;
  /** From the commit to the first answer carrying the written value (the figure). */
  readonly visibleMs: number;
  readonly polls: number;
  readonly etagChanged: boolean;
  readonly timedOut: boolean;
}
const cycles: Cycle[] = [];
let slug = '';
try {
  await svc.store.append(buildDataset({ seed: 2, days: 3, end: Date.now() }));
  const port = await svc.listen();
  // A `latest` benchmark: one new sample for a provider changes its row, the leader and the value.
  const spec = svc.specs.find((s) => s.derivation.mode === 'latest');
  const provider = spec?.providers[0]?.slug;
  if (!spec || !provider) throw new Error('no benchmark with a `latest` derivation and a provider');
  slug = spec.slug;
  const metric = spec.derivation.metric;
  const path = `/api/stat/${slug}`;
  const warm = await get(port, path);
  if (warm.status !== 200) throw new Error(`${path} answered ${warm.status}`);
  process.stderr.write(`sample-to-api: ${CYCLES} cycles on ${path} (provider ${provider}) …\n`);

  let lastT = 0;
  for (let i = 0; i < CYCLES; i++) {
    const before = await get(port, path);
    // Above every real count and different each cycle, so the provider leads with exactly this value;
    // at most six significant digits, as the Stat rounds to six (src/core/stats.ts).
    const v = 10_000 + (i % 90_000);
    const t = Math.max(Date.now(), lastT + 1);
    lastT = t;
    await svc.store.append([{ metric, labels: { provider }, t, v }]);
    const t0 = performance.now();
    let changedMs = Number.NaN;
    let etagChanged = false;
    let polls = 0;
    let timedOut = false;
    for (;;) {
      const r = await get(port, path);
      polls++;
      const now = performance.now() - t0;
      if (Number.isNaN(changedMs) && !r.body.equals(before.body)) {
        changedMs = now;
        etagChanged = r.etag !== before.etag;
      }
      if (!Number.isNaN(changedMs) && r.status === 200) {
        const stat = JSON.parse(r.body.toString('utf8')) as { value: number | null };
        if (stat.value === v) {
          cycles.push({ changedMs, visibleMs: now, polls, etagChanged, timedOut });
          break;
        }
      }
      if (now > GIVE_UP_MS) {
        timedOut = true;
        cycles.push({ changedMs, visibleMs: now, polls, etagChanged, timedOut });
        break;
      }
    }
  }
} finally {
  agent.destroy();
  await svc.close();
}

const visible = cycles.map((c) => c.visibleMs).sort((a, b) => a - b);
const p50 = pct(visible, 50);
const p90 = pct(visible, 90);
const max = visible.at(-1) ?? Number.NaN;
const timeouts = cycles.filter((c) => c.timedOut).length;
const etagMissed = cycles.filter((c) => !c.etagChanged).length;
const pollsMax = Math.max(...cycles.map((c) => c.polls));
const yes = (b: boolean) => (b ? 'yes' : '**NO**');
process.stdout.write(
  [
    '',
    machineLine(m),
    `${cycles.length} cycles: append one sample to ${slug}, then poll GET /api/stat/${slug} (keep-alive, no sleeps) until the body changed and carries the new value`,
    '',
    markdownTable([
      ['figure', 'measured', 'target', 'met?'],
      ['commit → visible, p50 (ms)', p50, `< ${TARGET_MS}`, yes(p50 < TARGET_MS)],
      ['commit → visible, p90 (ms)', p90, '—', '—'],
      ['commit → visible, max (ms)', max, `< ${TARGET_MS}`, yes(max < TARGET_MS && timeouts === 0)],
      ['cycles timed out (> 5 s)', timeouts, '0', yes(timeouts === 0)],
      ['cycles whose changed body kept the old ETag', etagMissed, '0', yes(etagMissed === 0)],
      ['most polls in one cycle', pollsMax, '—', '—'],
    ]),
    '',
  ].join('\n'),
);
await writeResults('sample-to-api', {
  startedAt: new Date().toISOString(),
  machine: m,
  slug,
  cycles: cycles.length,
  targetMs: TARGET_MS,
  visibleMs: { p50, p90, max },
  timeouts,
  etagUnchangedWithNewBody: etagMissed,
  perCycle: cycles,
});
