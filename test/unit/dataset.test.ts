/**
 * The daily open dataset: Parquet and CSV written by DuckDB, read back, frozen byte-identical
 * across restarts, served with the right errors; and the README's recompute queries.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { runExportCli } from '../../src/cli/export-cli.ts';
import { testConfig } from '../../src/config.ts';
import type { Sample } from '../../src/core/samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import {
  type DatasetFiles,
  writeDatasetFiles,
  writeDatasetFilesFrom,
} from '../../src/publication/dataset-files.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { BENCHMARKS_DIR, fixture, H, NOW } from '../helpers/fixture.ts';
import { serverWithApi } from '../helpers/openapi.ts';
import { startServer } from '../helpers/server.ts';

const YESTERDAY = '2026-11-19';

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe('writeDatasetFiles', () => {
  it('Parquet and CSV hold the same rows, one per sample, sorted; two writes are byte-identical', async () => {
    const samples: Sample[] = [
      { metric: 'networks_supported', labels: { provider: 'codex' }, t: NOW, v: 133 },
      {
        metric: 'token_trade_capture_pct',
        labels: { provider: 'mobula', chain: 'solana', token: 'BONK' },
        t: NOW,
        v: 97.5,
      },
      { metric: 'networks_supported', labels: { provider: 'codex' }, t: NOW - H, v: 131 },
      {
        metric: 'network_listed',
        labels: { provider: 'codex', name: 'Quote "x", y', raw_id: 'a,b' },
        t: NOW,
        v: 1,
      },
    ];
    const a = await writeDatasetFiles(samples);
    const b = await writeDatasetFiles([...samples].reverse());
    expect(Buffer.compare(a.parquet, b.parquet)).toBe(0);
    expect(Buffer.compare(a.csv, b.csv)).toBe(0);
    expect(a.rows).toBe(4);
    const dir = await mkdtemp(join(tmpdir(), 'citebench-ds-'));
    try {
      await writeFile(join(dir, 'd.parquet'), a.parquet);
      await writeFile(join(dir, 'd.csv'), a.csv);
      const cols = 'metric, chain, name, provider, raw_id, token, epoch_ms("timestamp") AS t, value';
      const pq = await query(`SELECT ${cols} FROM read_parquet('${dir}/d.parquet')`);
      const csv = await query(
        `SELECT ${cols} FROM read_csv('${dir}/d.csv', header = true, all_varchar = false, types = {'value': 'DOUBLE'})`,
      );
      expect(pq).toEqual(csv);
      expect(pq.map((r) => [r.metric, r.provider, r.value])).toEqual([
        ['network_listed', 'codex', 1],
        ['networks_supported', 'codex', 131],
        ['networks_supported', 'codex', 133],
        ['token_trade_capture_pct', 'mobula', 97.5],
      ]);
      expect(pq[0]?.name).toBe('Quote "x", y');
      expect(pq[2]?.t).toBe(String(NOW));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The writer as it was before it took batches (one array of the whole day), kept verbatim as the
 * reference: frozen files are stored once, so the streaming writer must give the same bytes for
 * the same samples, or a day frozen after the change would differ from one frozen before. One rule
 * was added to both since (issue 28 item 17): an empty label is an absent one.
 */
async function legacyWriteDatasetFiles(samples: readonly Sample[]): Promise<DatasetFiles> {
  const fixed = new Set(['metric', 'timestamp', 'value']);
  const labelColumn = (name: string) => (fixed.has(name) ? `label_${name}` : name);
  const quoteIdent = (x: string) => `"${x.replaceAll('"', '""')}"`;
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const labelNames = [
    ...new Set(samples.flatMap((s) => Object.keys(s.labels).filter((n) => s.labels[n] !== ''))),
  ].sort();
  const cols = labelNames.map((n) => quoteIdent(labelColumn(n)));
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const dir = await mkdtemp(join(tmpdir(), 'citebench-dataset-'));
  try {
    const conn = await instance.connect();
    try {
      await conn.run(
        `CREATE TABLE d (metric VARCHAR, ${cols.map((c) => `${c} VARCHAR, `).join('')}t BIGINT, value DOUBLE)`,
      );
      const app = await conn.createAppender('d');
      for (const s of samples) {
        app.appendVarchar(s.metric);
        for (const n of labelNames) {
          const v = s.labels[n];
          if (v === undefined || v === '') app.appendNull();
          else app.appendVarchar(v);
        }
        app.appendBigInt(BigInt(Math.trunc(s.t)));
        app.appendDouble(s.v);
        app.endRow();
      }
      app.closeSync();
      const order = ['metric', ...cols.map((c) => `${c} NULLS FIRST`), 't'].join(', ');
      const query = `SELECT metric, ${cols.map((c) => `${c}, `).join('')}make_timestamp(t * 1000) AS "timestamp", value FROM d ORDER BY ${order}`;
      const parquetPath = join(dir, 'day.parquet');
      const csvPath = join(dir, 'day.csv');
      await conn.run(
        `COPY (${query}) TO '${parquetPath}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`,
      );
      await conn.run(`COPY (${query}) TO '${csvPath}' (FORMAT csv, HEADER true)`);
      const parquet = new Uint8Array(await readFile(parquetPath));
      const csv = new Uint8Array(await readFile(csvPath));
      return { rows: samples.length, parquet, csv, sha256: { parquet: sha(parquet), csv: sha(csv) } };
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

function expectSameFiles(a: DatasetFiles, b: DatasetFiles): void {
  expect(a.rows).toBe(b.rows);
  expect(a.sha256).toEqual(b.sha256);
  expect(Buffer.compare(a.parquet, b.parquet)).toBe(0);
  expect(Buffer.compare(a.csv, b.csv)).toBe(0);
}

describe('streaming writer', () => {
  it('a day built one metric at a time has the bytes of the former whole-day writer', async () => {
    const f = await fixture({ seed: 3, days: 3 });
    try {
      // The 17th and 20th are partial days, the 18th and 19th full; the 21st has no sample.
      for (const d of [17, 18, 19, 20, 21]) {
        const start = Date.UTC(2026, 10, d);
        const all: Sample[] = [];
        let metrics = 0;
        for await (const batch of f.publication.dataset.samplesOf(start)) {
          if (batch.length > 0) metrics++;
          all.push(...batch);
        }
        if (d !== 21) expect(metrics).toBeGreaterThan(1);
        // Without the Parquet metadata build() adds (provenance, licences): the legacy writer had none.
        const streamed = await writeDatasetFilesFrom(f.publication.dataset.samplesOf(start));
        expect(streamed.rows).toBe(all.length);
        expectSameFiles(streamed, await legacyWriteDatasetFiles(all));
        expectSameFiles(await writeDatasetFiles(all), streamed);
      }
    } finally {
      await f.close();
    }
  });

  it("label names first seen in a later batch add columns; the bytes are the whole-day writer's", async () => {
    const batches: Sample[][] = [
      [{ metric: 'a_total', labels: {}, t: NOW, v: 1 }],
      [],
      [
        { metric: 'b_total', labels: { provider: 'codex' }, t: NOW, v: 2 },
        { metric: 'b_total', labels: { provider: 'codex' }, t: NOW - H, v: 3 },
      ],
      [
        { metric: 'c_total', labels: { provider: 'mobula', metric: 'x', chain: 'solana' }, t: NOW, v: 4 },
        { metric: 'c_total', labels: { chain: 'base', value: 'v', token: '' }, t: NOW + 0.5, v: 5 },
      ],
      [{ metric: 'a_total', labels: { provider: 'codex' }, t: NOW, v: 6 }],
    ];
    async function* stream() {
      for (const b of batches) yield b;
    }
    const streamed = await writeDatasetFilesFrom(stream());
    expect(streamed.rows).toBe(6);
    expectSameFiles(streamed, await legacyWriteDatasetFiles(batches.flat()));
    expect(new TextDecoder().decode(streamed.csv).split('\n')[0]).toBe(
      'metric,chain,label_metric,provider,label_value,timestamp,value',
    );
    expectSameFiles(await writeDatasetFilesFrom([]), await legacyWriteDatasetFiles([]));
  });
});

describe('empty labels (issue 28 item 17)', () => {
  it('an empty label is an absent one: null in both Parquet and CSV, the same rows in both', async () => {
    const samples: Sample[] = [
      // As the chain-listing probe writes an exclusion without a chain id.
      {
        metric: 'network_listing_excluded',
        labels: {
          provider: 'mobula',
          kind: 'testnet',
          reason: 'testnet',
          chain_id: '',
          name: 'Sepolia',
          raw_id: 's',
        },
        t: NOW,
        v: 1,
      },
      {
        metric: 'network_listing_excluded',
        labels: {
          provider: 'mobula',
          kind: 'x',
          reason: 'y',
          chain_id: 'eip155:1',
          name: 'Ethereum',
          raw_id: 'e',
        },
        t: NOW,
        v: 1,
      },
      { metric: 'networks_supported', labels: { provider: 'codex', chain_id: '' }, t: NOW, v: 133 },
      { metric: 'networks_supported', labels: { provider: 'mobula', only_empty: '' }, t: NOW, v: 78 },
    ];
    const files = await writeDatasetFiles(samples);
    const dir = await mkdtemp(join(tmpdir(), 'citebench-ds-'));
    try {
      await writeFile(join(dir, 'd.parquet'), files.parquet);
      await writeFile(join(dir, 'd.csv'), files.csv);
      const csvText = new TextDecoder().decode(files.csv);
      // A name only ever empty gets no column at all; a present one is null where empty.
      expect(csvText.split('\n')[0]).toBe('metric,chain_id,kind,name,provider,raw_id,reason,timestamp,value');
      expect(csvText).not.toContain('""');
      const sql = (from: string) =>
        `SELECT metric, provider, chain_id, chain_id IS NULL AS chain_null FROM ${from} ORDER BY metric, provider, chain_id NULLS FIRST`;
      const pq = await query(sql(`read_parquet('${dir}/d.parquet')`));
      const csv = await query(sql(`read_csv('${dir}/d.csv', header = true)`));
      expect(pq).toEqual(csv);
      expect(pq).toEqual([
        { metric: 'network_listing_excluded', provider: 'mobula', chain_id: null, chain_null: true },
        { metric: 'network_listing_excluded', provider: 'mobula', chain_id: 'eip155:1', chain_null: false },
        { metric: 'networks_supported', provider: 'codex', chain_id: null, chain_null: true },
        { metric: 'networks_supported', provider: 'mobula', chain_id: null, chain_null: true },
      ]);
      // Same bytes whether the empty label was written or left out.
      const absent = samples.map((s) => ({
        ...s,
        labels: Object.fromEntries(Object.entries(s.labels).filter(([, v]) => v !== '')),
      }));
      expectSameFiles(files, await writeDatasetFiles(absent));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('frozen days', () => {
  it("a closed day's files are byte-identical across restarts and late writes; the export writes the same", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'citebench-ds-'));
    const path = join(dir, 'citebench.duckdb');
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const config = testConfig({ baseUrl: 'http://bench.test', dataDir: dir, benchmarksDir: BENCHMARKS_DIR });
    const open = async () => {
      const store = await openDuckDbStore({ path });
      return { store, publication: createPublication({ specs, store, config, clock: () => NOW }) };
    };
    try {
      let s = await open();
      await s.store.append(buildDataset({ seed: 3, days: 2, end: NOW }));
      await s.publication.freezeClosedDays();
      await s.publication.dataset.freezeClosedDays(Date.UTC(2026, 10, 20));
      const first = await s.publication.dataset.file(YESTERDAY, 'parquet');
      const firstCsv = await s.publication.dataset.file(YESTERDAY, 'csv');
      if (first.kind !== 'ok' || firstCsv.kind !== 'ok') throw new Error(`not served: ${first.kind}`);
      expect(first.file.frozen).toBe(true);
      // A late sample for the closed day changes nothing published.
      await s.store.append([
        {
          metric: METRICS.networksSupported,
          labels: { provider: 'codex' },
          t: Date.UTC(2026, 10, 19, 13),
          v: 999,
        },
      ]);
      s.publication.close();
      await s.store.close();
      s = await open();
      const again = await s.publication.dataset.file(YESTERDAY, 'parquet');
      if (again.kind !== 'ok') throw new Error(again.kind);
      expect(Buffer.compare(again.file.body, first.file.body)).toBe(0);
      expect(again.file.etag).toBe(first.file.etag);
      const idx = await s.publication.dataset.index();
      const y = idx.days.find((d) => d.date === YESTERDAY);
      expect(y).toMatchObject({
        frozen: true,
        parquet: `http://bench.test/api/dataset/${YESTERDAY}.parquet`,
      });
      expect(idx.days.at(-1)).toMatchObject({ date: '2026-11-20', frozen: false });
      s.publication.close();
      await s.store.close();

      const out = join(dir, 'out');
      const lines: string[] = [];
      const code = await runExportCli(['--from', YESTERDAY, '--to', YESTERDAY, '--out', out], {
        env: { DATA_DIR: dir, BENCHMARKS_DIR },
        now: () => NOW,
        out: (x) => lines.push(x),
        err: (x) => lines.push(x),
        tty: false,
      });
      expect(code).toBe(0);
      expect(
        Buffer.compare(await readFile(join(out, `citebench-${YESTERDAY}.parquet`)), first.file.body),
      ).toBe(0);
      expect(
        Buffer.compare(await readFile(join(out, `citebench-${YESTERDAY}.csv`)), firstCsv.file.body),
      ).toBe(0);
      expect(lines.join('')).toContain('1/1 days (100%)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('HTTP', () => {
  const t = serverWithApi();
  const call = async (template: string, path: string) => {
    const res = await t.srv.get(path);
    const body = Buffer.from(await res.arrayBuffer());
    t.api.check(template, 'get', res, body.toString('utf8'));
    return { res, body };
  };

  it('GET /api/dataset lists the days with samples; a closed day is immutable with a strong ETag', async () => {
    const { res, body } = await call('/api/dataset', '/api/dataset');
    expect(res.status).toBe(200);
    const idx = JSON.parse(body.toString());
    expect(idx.days.map((d: { date: string }) => d.date)).toEqual([
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
    ]);
    const y = idx.days.find((d: { date: string }) => d.date === YESTERDAY);
    const pq = await call('/api/dataset/{file}', `/api/dataset/${YESTERDAY}.parquet`);
    expect(pq.res.status).toBe(200);
    expect(pq.res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(pq.res.headers.get('cache-control')).toContain('immutable');
    expect(pq.res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(pq.body.subarray(0, 4).toString()).toBe('PAR1');
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(pq.body).digest('hex')).toBe(y.sha256);
    const csv = await call('/api/dataset/{file}', `/api/dataset/${YESTERDAY}.csv`);
    expect(csv.body.toString().split('\n')[0]).toMatch(/^metric,.*,timestamp,value$/);
    expect(csv.body.toString().trim().split('\n').length - 1).toBe(y.rows);
    const today = await call('/api/dataset/{file}', '/api/dataset/2026-11-20.csv');
    expect(today.res.headers.get('cache-control')).not.toContain('immutable');
  });

  it('400 for a malformed date or an unknown extension, 404 for a day without data', async () => {
    // .json is a day's manifest now (issue 25), documented as its own route.
    expect((await call('/api/dataset/{file}', '/api/dataset/2026-11-19.txt')).res.status).toBe(400);
    expect((await call('/api/dataset/{date}.json', '/api/dataset/2026-11-19.json')).res.status).toBe(200);
    expect((await call('/api/dataset/{date}.json', '/api/dataset/2026-13-01.json')).res.status).toBe(400);
    expect((await call('/api/dataset/{file}', '/api/dataset/2026-13-01.csv')).res.status).toBe(400);
    expect((await call('/api/dataset/{file}', '/api/dataset/yesterday.parquet')).res.status).toBe(400);
    expect((await call('/api/dataset/{file}', '/api/dataset/2026-12-01.csv')).res.status).toBe(400);
  });

  it('404 for a day inside the history without a sample', async () => {
    // Samples on the 17th and the 19th only: the 18th is a hole.
    const samples = buildDataset({ seed: 3, days: 3, end: NOW }).filter(
      (x) => x.t < Date.UTC(2026, 10, 18) || x.t >= Date.UTC(2026, 10, 19),
    );
    const gap = await startServer({ samples });
    try {
      const res = await gap.get('/api/dataset/2026-11-18.parquet');
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('no_data');
      const idx = await (await gap.get('/api/dataset')).json();
      expect(idx.days.map((d: { date: string }) => d.date)).not.toContain('2026-11-18');
    } finally {
      await gap.close();
    }
  });
});

describe('README: recomputing published numbers from the files', () => {
  const readme = () => readFile(join(import.meta.dirname, '../../README.md'), 'utf8');
  /** The SQL blocks of the README section, with the file names pointed at the test files. */
  async function readmeSql(name: string, dir: string): Promise<string> {
    const text = await readme();
    const m = new RegExp(`-- ${name}\\n([\\s\\S]*?)\`\`\``).exec(text);
    if (!m?.[1]) throw new Error(`README has no "-- ${name}" query`);
    return m[1].replaceAll(`'citebench-${YESTERDAY}.parquet'`, `'${dir}/d.parquet'`);
  }

  it("reproduces the frozen day's network-coverage counts and token-trade p50s", async () => {
    const f = await startServer({ samples: buildDataset({ seed: 5, days: 3, end: NOW }) });
    const dir = await mkdtemp(join(tmpdir(), 'citebench-ds-'));
    try {
      const file = Buffer.from(await (await f.get(`/api/dataset/${YESTERDAY}.parquet`)).arrayBuffer());
      await writeFile(join(dir, 'd.parquet'), file);
      const frozen = async (slug: string) => (await f.get(`/api/stat/${slug}?date=${YESTERDAY}`)).json();
      const net = await frozen('network-coverage');
      const counts = await query(await readmeSql('network-coverage', dir));
      expect(Object.fromEntries(counts.map((r) => [r.provider, r.networks]))).toEqual(
        Object.fromEntries(
          net.rankings.map((r: { slug: string; ms: { p50: number } }) => [r.slug, r.ms.p50]),
        ),
      );
      const trade = await frozen('token-trade-coverage');
      const p50 = await query(await readmeSql('token-trade-coverage', dir));
      for (const r of trade.rankings as { slug: string; ms: { p50: number }; noComparison: boolean }[]) {
        if (r.noComparison) continue;
        const row = p50.find((x) => x.provider === r.slug);
        expect(Number(Number(row?.p50).toPrecision(6)), r.slug).toBe(r.ms.p50);
      }
      // successRate counts every probe of the day, failed ones included (issue 20, rule 1).
      const success = await query(await readmeSql('token-trade-success', dir));
      expect(
        Object.fromEntries(success.map((r) => [r.provider, Number(Number(r.success_rate).toPrecision(6))])),
      ).toEqual(
        Object.fromEntries(
          trade.rankings.map((r: { slug: string; successRate: number }) => [r.slug, r.successRate]),
        ),
      );
      expect(trade.rankings.some((r: { successRate: number }) => r.successRate < 100)).toBe(true);
    } finally {
      await f.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
