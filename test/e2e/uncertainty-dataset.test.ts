/**
 * Issue 24 rule 8: a frozen day's Stats are reproducible from that day's dataset CSV alone. The day
 * holds the demo's trade cycles and a few hours of 1-minute RPC slots in two regions (with slots on
 * both sides of each midnight); every window-mode row's ci95 and every vsLeader's sign test are
 * recomputed here from the CSV's rows by the rules as the methodology states them (the ≥ 2-providers
 * pair rule, order-statistic ranks, one paired value per region and cycle), and must equal the
 * frozen bytes exactly. A live Stat is recomputed the same way from yesterday's and today's files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RankingRow, Stat } from '../../src/core/api-schemas.ts';
import { DAY_MS, dayStart } from '../../src/core/dates.ts';
import { prng } from '../../src/core/prng.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { quantileSorted, round6 } from '../../src/core/stats.ts';
import { orderStatRanks, signTest } from '../../src/core/uncertainty.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import type { BlockRef } from '../../src/harness/families/json-rpc/methods.ts';
import { RPC_KINDS } from '../../src/harness/families/json-rpc/metrics.ts';
import { samplesOf } from '../../src/harness/families/json-rpc/probe.ts';
import { seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';

const DAY = dayStart(NOW) - DAY_MS;
const YESTERDAY = new Date(DAY).toISOString().slice(0, 10);
const TODAY = new Date(dayStart(NOW)).toISOString().slice(0, 10);
const MIN = 60_000;
/** Per-provider latency floors: two pairs close enough to tie, others apart. */
const FLOOR: Record<string, number> = { alchemy: 20, infura: 20, quicknode: 35, ankr: 35 };

/** RPC slots as the harness writes them, for every provider and chain of rpc-latency, two regions. */
function rpcSlots(spec: BenchmarkSpec, slots: readonly number[]): Sample[] {
  const rand = prng(24);
  const series = spec.providers.flatMap((p) =>
    (p.chains ?? []).flatMap((chain) => RPC_KINDS.map((kind) => ({ provider: p.slug, chain, kind }))),
  );
  const out: Sample[] = [];
  for (const at of slots) {
    const head: BlockRef = { number: 1_000_000 + at / 12_000, hash: '0x', timestampMs: at };
    for (const region of ['eu-west', 'us-east']) {
      const outcomes = series.map((s) => {
        const full = { ...s, offsetMs: seriesOffset(s.provider, s.chain, s.kind, 0) };
        if (rand() < 0.02) return { series: full, ok: false as const, reason: 'timeout' as const };
        const lag = Math.floor(rand() * 3);
        return {
          series: full,
          ok: true as const,
          ms: round6((FLOOR[s.provider] ?? 50) + 40 * rand() ** 3),
          ...(s.kind === 'block'
            ? { block: { number: head.number - lag, hash: '0x', timestampMs: at - lag * 12_000 }, head }
            : {}),
        };
      });
      for (const s of samplesOf(outcomes, at, 10_000, 60_000))
        out.push({ ...s, labels: { ...s.labels, region } });
    }
  }
  return out;
}

/** The CSV's rows back as samples: every column but metric, timestamp and value is a label. */
async function readCsv(csv: Uint8Array): Promise<Sample[]> {
  const dir = await mkdtemp(join(tmpdir(), 'citebench-ci-'));
  const instance = await DuckDBInstance.create(':memory:');
  try {
    await writeFile(join(dir, 'd.csv'), csv);
    const conn = await instance.connect();
    const reader = await conn.runAndReadAll(
      `SELECT * FROM read_csv('${dir}/d.csv', header = true, all_varchar = true)`,
    );
    const names = reader.columnNames();
    const out: Sample[] = [];
    for (const row of reader.getRows()) {
      const labels: Record<string, string> = {};
      let metric = '';
      let t = 0;
      let v = 0;
      names.forEach((n, i) => {
        const x = row[i];
        if (x === null || x === undefined) return;
        const s = String(x);
        if (n === 'metric') metric = s;
        else if (n === 'timestamp') t = Date.parse(`${s.replace(' ', 'T')}Z`);
        else if (n === 'value') v = Number(s);
        else labels[n.replace(/^label_/, '')] = s;
      });
      out.push({ metric, labels, t, v });
    }
    conn.closeSync();
    return out;
  } finally {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

const cellOf = (s: Sample, cellLabels: readonly string[]) =>
  [...cellLabels.map((l) => s.labels[l] ?? ''), s.labels.region ?? ''].join('|');

/** The published rows' statistics, recomputed from CSV samples by the stated rules. */
function recompute(spec: BenchmarkSpec, samples: readonly Sample[], from: number, to: number) {
  if (spec.derivation.mode !== 'window') throw new Error(spec.slug);
  const { metric, cellLabels } = spec.derivation;
  const providers = new Set(spec.providers.map((p) => p.slug));
  const values = samples.filter(
    (s) => s.metric === metric && providers.has(s.labels.provider ?? '') && s.t > from && s.t <= to,
  );
  // The pair rule: a (cell, cycle) counts when at least two providers were measured on it.
  const who = new Map<string, Set<string>>();
  for (const s of values) {
    const k = `${cellOf(s, cellLabels)}@${s.t}`;
    const set = who.get(k) ?? new Set();
    set.add(s.labels.provider ?? '');
    who.set(k, set);
  }
  const shared = (s: Sample) => (who.get(`${cellOf(s, cellLabels)}@${s.t}`)?.size ?? 0) >= 2;
  const own = (p: string) => values.filter((s) => s.labels.provider === p);
  const ci = (p: string) => {
    const mine = own(p);
    const used = mine.some(shared) ? mine.filter(shared) : mine;
    const sorted = used.map((s) => s.v).sort((a, b) => a - b);
    const at = (q: number) => {
      const r = orderStatRanks(sorted.length, q);
      return r && [round6(sorted[r.lo - 1] as number), round6(sorted[r.hi - 1] as number)];
    };
    return { p50: round6(quantileSorted(sorted, 0.5)), ci95: { p50: at(0.5), p90: at(0.9), p99: at(0.99) } };
  };
  const paired = (a: string, b: string) => {
    const av = new Map(own(a).map((s) => [`${cellOf(s, cellLabels)}@${s.t}`, s.v]));
    const perCycle = new Map<string, number[]>();
    for (const s of own(b)) {
      const x = av.get(`${cellOf(s, cellLabels)}@${s.t}`);
      if (x === undefined) continue;
      const k = `${s.labels.region ?? ''}@${s.t}`;
      perCycle.set(k, [...(perCycle.get(k) ?? []), x - s.v]);
    }
    return signTest(
      [...perCycle.values()].map((ds) =>
        quantileSorted(
          [...ds].sort((x, y) => x - y),
          0.5,
        ),
      ),
    );
  };
  return { ci, paired };
}

function checkRows(spec: BenchmarkSpec, stat: Stat, samples: readonly Sample[], from: number, to: number) {
  const { ci, paired } = recompute(spec, samples, from, to);
  const leader = stat.rankings[0];
  let tested = 0;
  for (const row of stat.rankings as RankingRow[]) {
    const r = ci(row.slug);
    expect(row.ms.p50, `${spec.slug} ${row.slug}`).toBe(r.p50);
    expect(row.ci95, `${spec.slug} ${row.slug}`).toEqual(r.ci95);
    if (row.vsLeader && leader) {
      const t = paired(leader.slug, row.slug);
      expect([row.vsLeader.pairs, row.vsLeader.pValue], `${spec.slug} ${row.slug}`).toEqual([
        t.pairs,
        t.pValue,
      ]);
      tested++;
    }
  }
  return tested;
}

let f: Fixture;
let csvDay: Sample[];
let csvToday: Sample[];

beforeAll(async () => {
  const base = await fixture({ samples: [] });
  const latency = base.specs.find((s) => s.slug === 'rpc-latency');
  await base.close();
  if (!latency) throw new Error('rpc-latency');
  // Ten minutes either side of each midnight, the day's first and last three hours, and today's.
  const slots: number[] = [];
  for (let t = DAY - 10 * MIN; t < DAY + 3 * 60 * MIN; t += MIN) slots.push(t);
  for (let t = DAY + DAY_MS - 3 * 60 * MIN; t < DAY + DAY_MS + 10 * MIN; t += MIN) slots.push(t);
  slots.push(DAY + DAY_MS - 1);
  for (let t = NOW - 2 * 60 * MIN; t < NOW; t += MIN) slots.push(t);
  f = await fixture({
    samples: [...buildDataset({ seed: 7, days: 2, end: NOW }), ...rpcSlots(latency, slots)],
  });
  await f.publication.freezeClosedDays();
  await f.publication.dataset.freezeClosedDays(NOW);
  const files = await Promise.all([
    f.publication.dataset.file(YESTERDAY, 'csv'),
    f.publication.dataset.file(TODAY, 'csv'),
  ]);
  const [day, today] = files;
  if (day?.kind !== 'ok' || today?.kind !== 'ok') throw new Error('dataset files not served');
  csvDay = await readCsv(day.file.body);
  csvToday = await readCsv(today.file.body);
});

afterAll(async () => {
  await f?.close();
});

/** The providers a recompute-ci.py run says the row is less reliable than. */
function lessReliableOf(out: string): string[] {
  const list = /less reliable than \[(.*?)\] \(published/.exec(out)?.[1];
  if (list === undefined) throw new Error(`no reliability line in: ${out}`);
  return list === '' ? [] : list.split(', ').map((x) => x.replace(/'/g, ''));
}

describe('rule 8: reproducible from the dataset alone', () => {
  it("a frozen day's ci95 and vsLeader of every window benchmark, from that day's CSV", async () => {
    let tests = 0;
    let rows = 0;
    for (const spec of f.specs.filter((s) => s.derivation.mode === 'window')) {
      const frozen = await f.publication.frozenStat(spec.slug, YESTERDAY);
      if (frozen.kind !== 'ok') throw new Error(`${spec.slug}: ${frozen.kind}`);
      const stat = JSON.parse(new TextDecoder().decode(frozen.served.body)) as Stat;
      expect(stat.rankings.length, spec.slug).toBeGreaterThan(1);
      rows += stat.rankings.length;
      // The day exactly: [00:00, 23:59:59.999] UTC.
      tests += checkRows(spec, stat, csvDay, DAY - 1, DAY + DAY_MS - 1);
    }
    expect(rows).toBeGreaterThan(10);
    expect(tests).toBeGreaterThan(5);
    // The day's file holds the slot at 00:00 and the one at 23:59:59.999, nothing from either side.
    const rpc = csvDay.filter((s) => s.metric === 'rpc_latency_ms');
    expect(Math.min(...rpc.map((s) => s.t))).toBe(DAY);
    expect(Math.max(...rpc.map((s) => s.t))).toBe(DAY + DAY_MS - 1);
  });

  it('scripts/recompute-ci.py, sharing no code with the service, gets the same from the two files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'citebench-ci-py-'));
    try {
      const day = await f.publication.dataset.file(YESTERDAY, 'csv');
      const frozen = await f.publication.frozenStat('token-trade-coverage', YESTERDAY);
      if (day?.kind !== 'ok' || frozen.kind !== 'ok') throw new Error('day not served');
      await writeFile(join(dir, 'day.csv'), day.file.body);
      await writeFile(join(dir, 'stat.json'), frozen.served.body);
      const stat = JSON.parse(new TextDecoder().decode(frozen.served.body)) as Stat;
      let checked = 0;
      for (const row of stat.rankings.slice(1)) {
        const out = execFileSync('python3', [
          join(import.meta.dirname, '../../scripts/recompute-ci.py'),
          join(dir, 'day.csv'),
          join(dir, 'stat.json'),
          row.slug,
        ]).toString();
        const nums = (re: RegExp) => (re.exec(out)?.slice(1) ?? []).map(Number);
        const [lo, hi, pubLo, pubHi] = nums(
          /ci95\.p50 = \[([\d.e+-]+), ([\d.e+-]+)\] \(published \[([\d.e+-]+), ([\d.e+-]+)\]\)/,
        );
        expect([lo, hi], `${row.slug}: ${out}`).toEqual(row.ci95?.p50);
        expect([pubLo, pubHi]).toEqual(row.ci95?.p50);
        const [m, p] = nums(/: (\d+) non-zero cycles .*?, p = ([\d.e+-]+) \(/);
        expect([m, p], out).toEqual([row.vsLeader?.pairs, row.vsLeader?.pValue]);
        const [delta] = nums(/delta vs .* = ([\d.e+-]+) over/);
        expect(delta, out).toBeCloseTo(row.vsLeader?.delta ?? Number.NaN, 4);
        expect(lessReliableOf(out), out).toEqual(row.lessReliableThan ?? []);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
      // Head lag: its mean, its Δ (taken in the mean) and every lag against the block numbers beside it.
      const lag = await f.publication.frozenStat('rpc-head-lag', YESTERDAY);
      if (lag.kind !== 'ok') throw new Error('head lag day not served');
      await writeFile(join(dir, 'lag.json'), lag.served.body);
      const lagStat = JSON.parse(new TextDecoder().decode(lag.served.body)) as Stat;
      for (const row of lagStat.rankings.filter((r) => r.rank !== null).slice(0, 3)) {
        const out = execFileSync('python3', [
          join(import.meta.dirname, '../../scripts/recompute-ci.py'),
          join(dir, 'day.csv'),
          join(dir, 'lag.json'),
          row.slug,
        ]).toString();
        const [mean] = (/mean = ([\d.e+-]+) \(/.exec(out)?.slice(1) ?? []).map(Number);
        expect(mean, out).toBeCloseTo(row.ms.mean, 4);
        expect(lessReliableOf(out), out).toEqual(row.lessReliableThan ?? []);
        const [agree, n] = (/head numbers: (\d+) of (\d+) lags/.exec(out)?.slice(1) ?? []).map(Number);
        expect(n, out).toBeGreaterThan(0);
        expect(agree, out).toBe(n);
        if (row.vsLeader) {
          const [delta] = (/delta vs .* = ([\d.e+-]+) over/.exec(out)?.slice(1) ?? []).map(Number);
          expect(delta, out).toBeCloseTo(row.vsLeader.delta ?? Number.NaN, 1);
        }
      }
      // Latency: the reliability verdicts of the top rows, from the probe outcomes alone (a case that
      // separates two providers is in methodology-third-pass.test.ts).
      const latency = await f.publication.frozenStat('rpc-latency', YESTERDAY);
      if (latency.kind !== 'ok') throw new Error('latency day not served');
      await writeFile(join(dir, 'latency.json'), latency.served.body);
      const latencyStat = JSON.parse(new TextDecoder().decode(latency.served.body)) as Stat;
      for (const row of latencyStat.rankings.slice(0, 3)) {
        const out = execFileSync('python3', [
          join(import.meta.dirname, '../../scripts/recompute-ci.py'),
          join(dir, 'day.csv'),
          join(dir, 'latency.json'),
          row.slug,
        ]).toString();
        expect(lessReliableOf(out), out).toEqual(row.lessReliableThan ?? []);
      }
      // Recall, from the counts the dataset stores beside each sample (|P ∩ T_fin|, |T_fin|, phantoms).
      const recall = await f.publication.frozenStat('token-trade-recall', YESTERDAY);
      if (recall.kind !== 'ok') throw new Error('recall day not served');
      await writeFile(join(dir, 'recall.json'), recall.served.body);
      const leader =
        (JSON.parse(new TextDecoder().decode(recall.served.body)) as Stat).rankings[0]?.slug ?? '';
      const out = execFileSync('python3', [
        join(import.meta.dirname, '../../scripts/recompute-ci.py'),
        join(dir, 'day.csv'),
        join(dir, 'recall.json'),
        leader,
      ]).toString();
      const [agree, n] = (/recall from counts: (\d+) of (\d+) samples/.exec(out)?.slice(1) ?? []).map(Number);
      expect(n, out).toBeGreaterThan(10);
      expect(agree).toBe(n);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // Python over a day of every benchmark, about 20 runs of 1-3 s each on a quiet machine.
  }, 240_000);

  it("a live Stat from yesterday's and today's files", async () => {
    for (const slug of ['rpc-latency', 'token-trade-coverage']) {
      const spec = f.specs.find((s) => s.slug === slug);
      if (!spec) throw new Error(slug);
      const { value: stat } = await f.publication.stat(slug, null);
      expect(checkRows(spec, stat, [...csvDay, ...csvToday], NOW - DAY_MS, NOW)).toBeGreaterThan(0);
    }
  });
});
