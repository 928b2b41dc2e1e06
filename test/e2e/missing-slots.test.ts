import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HARNESS_CYCLE_METRIC } from '../../src/core/metric-names.ts';
import { daySlots, type MissingSlot, missingSlotsNote, type SlotRef } from '../../src/core/missing-slots.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { DEMO_CLOCK_FILE } from '../../src/demo/demo-clock.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { benchmarksWithout } from '../helpers/benchmarks-dir.ts';
import { NOW } from '../helpers/fixture.ts';
import { startServer } from '../helpers/server.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

const MIN = 60_000;
const DAY_START = Date.UTC(2026, 2, 10);
const DAY_END = DAY_START + 86_400_000 - 1;
const TRADE = 'token-trade-coverage';
const at = (h: number, m = 0) => DAY_START + h * 60 * MIN + m * MIN;
const ref = (benchmark: string, t: number, region: string | null = null): SlotRef => ({
  benchmark,
  region,
  at: t,
});
const cadences: Record<string, number> = {
  [TRADE]: 30 * MIN,
  'network-coverage': 360 * MIN,
  'rpc-latency': MIN,
};
const base = {
  start: DAY_START,
  end: DAY_END,
  cadenceOf: (b: string) => cadences[b],
  seriesBefore: [],
  liveFrom: Number.NEGATIVE_INFINITY,
  planned: [],
  givenUp: [],
};
const slotsOf = (missing: readonly MissingSlot[]) =>
  missing.map((m) => `${m.benchmark}@${m.slot.slice(11, 16)}`);

describe('the freeze rule: which slots a closed day expected, and which nobody tried', () => {
  it('live: every aligned slot from the first marker of each (benchmark, region) on; a failed cycle is tried', () => {
    const markers = [at(10), at(10, 30), at(12), at(13, 30)].map((t) => ref(TRADE, t));
    // A failed cycle's marker (value 0, label failure) is a marker like any other.
    markers.push(ref(TRADE, at(12, 30)));
    const { awaited, missing } = daySlots({ ...base, markers });
    expect(awaited).toEqual([]);
    const want = [at(11), at(11, 30), at(13)];
    for (let t = at(14); t <= DAY_END; t += 30 * MIN) want.push(t);
    expect(missing.map((m) => m.slot)).toEqual(want.map((t) => new Date(t).toISOString()));
    expect(missing.every((m) => m.benchmark === TRADE && m.region === null)).toBe(true);
  });

  it('live: a series measured before the day expects the whole day; regions are separate series', () => {
    const markers = [ref('rpc-latency', at(23, 58), 'eu-west'), ref('rpc-latency', at(23, 59), 'eu-west')];
    const { missing } = daySlots({
      ...base,
      markers,
      seriesBefore: [
        { benchmark: 'rpc-latency', region: 'eu-west' },
        { benchmark: TRADE, region: null },
      ],
    });
    expect(missing.filter((m) => m.benchmark === 'rpc-latency')).toHaveLength(1438);
    expect(missing.filter((m) => m.benchmark === TRADE)).toHaveLength(48);
    expect(new Set(missing.map((m) => m.region))).toEqual(new Set(['eu-west', null]));
  });

  it('a plan: its untried slots are awaited (never missing), its given-up slots are missing, after its newest slot the live rule', () => {
    const planned = [ref(TRADE, at(1)), ref(TRADE, at(1, 30)), ref(TRADE, at(2))];
    const input = {
      ...base,
      liveFrom: at(2, 10),
      planSeries: [{ benchmark: TRADE, region: null, end: at(2) }],
      planned,
      givenUp: [ref(TRADE, at(0, 30))],
    };
    const waiting = daySlots({ ...input, markers: [ref(TRADE, at(1))] });
    expect(waiting.awaited.map((s) => s.at)).toEqual([at(1, 30), at(2)]);
    const done = daySlots({
      ...input,
      markers: [...planned, ref(TRADE, at(3))],
    });
    expect(done.awaited).toEqual([]);
    // 00:30 given up; 02:30 (after the plan, before the first live marker) is missing too.
    expect(slotsOf(done.missing).slice(0, 3)).toEqual([`${TRADE}@00:30`, `${TRADE}@02:30`, `${TRADE}@03:30`]);
    // Slots the plan does not hold and that lie before its end are not expected (00:00, 01:00 aside).
    expect(slotsOf(done.missing)).not.toContain(`${TRADE}@00:00`);
  });

  it('the methodology statement names the slots, the first ten and how many more', () => {
    const missing = Array.from({ length: 12 }, (_, i) => ({
      benchmark: TRADE,
      region: i === 0 ? 'eu-west' : null,
      slot: new Date(at(i)).toISOString(),
    }));
    const note = missingSlotsNote('2026-03-10', missing);
    expect(note).toMatch(/^Not measured on 2026-03-10: 12 scheduled slots/);
    expect(note).toContain('00:00 (eu-west), 01:00');
    expect(note).toContain('09:00 and 2 more UTC');
  });
});

describe('a closed day frozen after a downtime (live: serve)', () => {
  it('lists both slots the service was down for in the index site, the Stat and its methodology, the dataset index and manifest; a day without is published as before', async () => {
    // Down over (08:00, 09:00] on 2026-11-19: the trade slots 08:30 and 09:00 never ran.
    const day = '2026-11-19';
    const down = { from: Date.UTC(2026, 10, 19, 8), to: Date.UTC(2026, 10, 19, 9) };
    const srv = await startServer({
      samples: buildDataset({ seed: 7, days: 3, end: NOW, markers: true, down }),
    });
    try {
      const want = ['08:30', '09:00'].flatMap((hm) =>
        [TRADE, 'token-trade-recall'].map((benchmark) => ({
          benchmark,
          region: null,
          slot: `${day}T${hm}:00.000Z`,
        })),
      );
      const index = await (await srv.get(`/api/citable/${day}`)).json();
      expect(index.site.missingSlots).toEqual(want);
      const stat = await (await srv.get(`/api/stat/${TRADE}?date=${day}`)).json();
      expect(stat.missingSlots).toEqual(want.filter((m) => m.benchmark === TRADE));
      expect(stat.methodology.at(-1)).toMatch(
        /^Not measured on 2026-11-19: 2 scheduled slots .* at 08:30, 09:00 UTC/,
      );
      const network = await (await srv.get(`/api/stat/network-coverage?date=${day}`)).json();
      expect(network.missingSlots).toBeUndefined();
      const datasetIndex = await (await srv.get('/api/dataset')).json();
      expect(datasetIndex.days.find((d: { date: string }) => d.date === day).missingSlots).toEqual(want);
      expect((await (await srv.get(`/api/dataset/${day}.json`)).json()).missingSlots).toEqual(want);
      // The day before had every slot: nothing is added to it.
      const before = await (await srv.get('/api/citable/2026-11-18')).json();
      expect(before.site.missingSlots).toBeUndefined();
      expect('missingSlots' in (await (await srv.get(`/api/stat/${TRADE}?date=2026-11-18`)).json())).toBe(
        false,
      );
    } finally {
      await srv.close();
    }
  });
});

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

const serveSimulate = [process.execPath, 'bin/citebench.mjs', 'serve', '--simulate'];
/**
 * Each step waits for its event (cycles logged, /healthz, the day frozen), bounded only against a
 * hang: quiet, each comes within 5–30 s (the freeze after the simulated midnight); the bound allows
 * twice the slowest, and the test's timeout covers every step at its bound.
 */
const STEP_MS = 60_000;
const tradeCycles = (log: string) =>
  [...log.matchAll(/ token-trade-coverage: cycle (\S+) wrote \d+ samples/g)].map((m) =>
    Date.parse(m[1] ?? ''),
  );

describe('serve --simulate down across two slots', () => {
  it('freezes the day with both slots (and every other one nobody ran) in missingSlots: index site, Stat, methodology, dataset index and manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-missing-'));
    // The demo clock at 1200× from 10:00 on 2026-03-10: a trade slot every 1.5 s of wall time,
    // midnight fourteen simulated hours (42 s) away. The first run must stop before 23:00 (its next
    // two slots in the day): the clock runs while it starts, so thirteen hours leave a start of up
    // to 39 s (quiet: 3–5 s; from 14:00 a busy machine's start once left none).
    const env = {
      DATA_DIR: dir,
      DEMO_SPEED: '1200',
      DEMO_START: '2026-03-10T10:00:00Z',
      BENCHMARKS_DIR: benchmarksWithout(['json-rpc']),
    };
    const first = await spawnService(env, { command: serveSimulate });
    running.push(first);
    await first.waitFor(/(token-trade-coverage: cycle \S+ wrote[\s\S]*){2}/, STEP_MS);
    first.child.kill('SIGTERM');
    expect((await first.exited()).code).toBe(0);
    const last = Math.max(...tradeCycles(first.output()));
    expect(last).toBeLessThan(at(23));
    // Down until the clock, which runs on while no process does, is past two more slots.
    const clock = JSON.parse(readFileSync(join(dir, DEMO_CLOCK_FILE), 'utf8'));
    const simulated = () => Date.parse(clock.anchor) + (Date.now() - Date.parse(clock.anchorWall)) * 1200;
    while (simulated() < last + 65 * MIN) await new Promise((r) => setTimeout(r, 100));

    const second = await spawnService(env, { command: serveSimulate });
    running.push(second);
    await until200(`${second.base}/healthz`, STEP_MS, second);
    // The day closes on the demo clock; it is frozen without waiting for anyone (until then the
    // day is today, answered live).
    type Index = { site: { snapshotDate: string | null; missingSlots?: MissingSlot[] } };
    let index: Index | undefined;
    for (const end = Date.now() + 2 * STEP_MS; Date.now() < end; ) {
      const r = await fetch(`${second.base}/api/citable/2026-03-10`);
      const body = (await r.json()) as Index;
      if (r.status === 200 && body.site.snapshotDate === '2026-03-10') {
        index = body;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!index) throw new Error(`2026-03-10 not frozen:\n${second.output().slice(-2000)}`);
    const stat = (await (await fetch(`${second.base}/api/stat/${TRADE}?date=2026-03-10`)).json()) as {
      missingSlots?: MissingSlot[];
      methodology: string[];
    };
    const datasetIndex = (await (await fetch(`${second.base}/api/dataset`)).json()) as {
      days: Array<{ date: string; missingSlots?: MissingSlot[] }>;
    };
    const manifest = (await (await fetch(`${second.base}/api/dataset/2026-03-10.json`)).json()) as {
      missingSlots?: MissingSlot[];
    };
    second.child.kill('SIGTERM');
    await second.exited();

    // What the store holds: each benchmark's markers of the day; expected from its first one on.
    const store = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
    const markers = await store.select({
      metric: HARNESS_CYCLE_METRIC,
      after: DAY_START - 1,
      until: DAY_END,
    });
    await store.close();
    const want: string[] = [];
    for (const benchmark of [...new Set(markers.map((m) => m.labels.benchmark ?? ''))].sort()) {
      const cadence = cadences[benchmark] ?? 30 * MIN;
      const times = new Set(markers.filter((m) => m.labels.benchmark === benchmark).map((m) => m.t));
      for (let t = Math.ceil(Math.min(...times) / cadence) * cadence; t <= DAY_END; t += cadence)
        if (!times.has(t)) want.push(`${benchmark}@${new Date(t).toISOString()}`);
    }
    const published = (index.site.missingSlots ?? []).map((m) => `${m.benchmark}@${m.slot}`);
    expect(published.sort()).toEqual(want.sort());
    // The two slots right after the last one measured before the stop are among them.
    for (const benchmark of [TRADE, 'token-trade-recall'])
      for (const t of [last + 30 * MIN, last + 60 * MIN])
        expect(published).toContain(`${benchmark}@${new Date(t).toISOString()}`);
    // Each frozen Stat lists its own, and says so in its methodology; the dataset too.
    const own = index.site.missingSlots?.filter((m) => m.benchmark === TRADE);
    expect(stat.missingSlots).toEqual(own);
    expect(stat.methodology.at(-1)).toMatch(
      new RegExp(`^Not measured on 2026-03-10: ${own?.length} scheduled slots`),
    );
    expect(datasetIndex.days.find((d) => d.date === '2026-03-10')?.missingSlots).toEqual(
      index.site.missingSlots,
    );
    expect(manifest.missingSlots).toEqual(index.site.missingSlots);
  }, 300_000);
});
