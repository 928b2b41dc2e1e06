import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { putSnapshots } from '../../src/store/sample-store.ts';

const m = (provider: string, t: number, v: number, extra: Record<string, string> = {}) => ({
  metric: 'networks_supported',
  labels: { provider, ...extra },
  t,
  v,
});

describe('DuckDB sample store', () => {
  it('appends idempotently on (metric, labels, timestamp), whatever the label order', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    expect(await s.append([m('a', 1000, 1), m('b', 1000, 2), m('a', 2000, 3)])).toBe(3);
    expect(
      await s.append([
        m('a', 1000, 99),
        { metric: 'networks_supported', labels: { provider: 'b' }, t: 1000, v: 5 },
      ]),
    ).toBe(0);
    expect(await s.append([{ metric: 'x', labels: { b: '2', a: '1' }, t: 1, v: 1 }])).toBe(1);
    expect(await s.append([{ metric: 'x', labels: { a: '1', b: '2' }, t: 1, v: 1 }])).toBe(0);
    const all = await s.select({ metric: 'networks_supported', after: 0, until: 5000 });
    expect(all.map((x) => [x.labels.provider, x.t, x.v])).toEqual([
      ['a', 1000, 1],
      ['a', 2000, 3],
      ['b', 1000, 2],
    ]);
    await s.close();
  });

  it('selects a left-open, right-closed range with label matchers', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    await s.append([m('a', 1000, 1), m('a', 2000, 2), m('a', 3000, 3), m('b', 2000, 4, { chain: 'sol' })]);
    const r = await s.select({ metric: 'networks_supported', after: 1000, until: 3000 });
    expect(r.map((x) => x.t)).toEqual([2000, 3000, 2000]);
    const ne = await s.select({
      metric: 'networks_supported',
      matchers: [{ name: 'chain', op: '!=', value: '' }],
      after: 0,
      until: 9999,
    });
    expect(ne.map((x) => x.labels.provider)).toEqual(['b']);
    const re = await s.select({
      metric: 'networks_supported',
      matchers: [{ name: 'provider', op: '=~', value: 'a|z' }],
      after: 0,
      until: 9999,
    });
    expect(re).toHaveLength(3);
    const nre = await s.select({
      metric: 'networks_supported',
      matchers: [{ name: 'provider', op: '!~', value: 'a' }],
      after: 0,
      until: 9999,
    });
    expect(nre.map((x) => x.labels.provider)).toEqual(['b']);
    expect(await s.select({ metric: 'unknown', after: 0, until: 1 })).toEqual([]);
    await s.close();
  });

  it('returns the latest sample at or before a time, per series', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    await s.append([m('a', 1000, 1), m('a', 2000, 2), m('a', 3000, 3), m('b', 500, 9)]);
    const r = await s.latest({ metric: 'networks_supported', at: 2500 });
    expect(r.map((x) => [x.labels.provider, x.t, x.v])).toEqual([
      ['a', 2000, 2],
      ['b', 500, 9],
    ]);
    const bounded = await s.latest({ metric: 'networks_supported', at: 2500, notBefore: 600 });
    expect(bounded.map((x) => x.labels.provider)).toEqual(['a']);
    expect(await s.timeBounds(['networks_supported'])).toEqual({ min: 500, max: 3000 });
    expect(await s.timeBounds(['nothing'])).toBeNull();
    await s.close();
  });

  it('notifies listeners with the touched metrics, only when rows were stored', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    const calls: string[][] = [];
    s.onAppend((metrics) => calls.push([...metrics]));
    await s.append([m('a', 1, 1)]);
    await s.append([m('a', 1, 1)]);
    expect(calls).toEqual([['networks_supported']]);
    await s.close();
  });

  it('rejects non-finite values and bad metric names without storing anything', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    expect(() => s.append([m('a', 1, Number.NaN)])).toThrow(/non-finite/);
    expect(() => s.append([{ metric: 'bad name', labels: {}, t: 1, v: 1 }])).toThrow(/bad metric name/);
    expect(await s.timeBounds()).toBeNull();
    await s.close();
  });

  it('persists samples, snapshots and state across reopen, at the current schema version', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'store-'));
    const path = join(dir, 'db', 'citebench.duckdb');
    const s = await openDuckDbStore({ path });
    await s.append([m('a', 1000, 263)]);
    const first = await s.putSnapshot('citable:2026-01-01', new TextEncoder().encode('{"v":1}'), '"e1"');
    const second = await s.putSnapshot('citable:2026-01-01', new TextEncoder().encode('{"v":2}'), '"e2"');
    expect(second.etag).toBe('"e1"');
    expect(new TextDecoder().decode(second.body)).toBe('{"v":1}');
    expect(second.createdAt).toBe(first.createdAt);
    await s.setState('k', 'v1');
    await s.setState('k', 'v2');
    await s.close();

    const again = await openDuckDbStore({ path });
    expect((await again.latest({ metric: 'networks_supported', at: 5000 }))[0]?.v).toBe(263);
    expect(new TextDecoder().decode((await again.getSnapshot('citable:2026-01-01'))?.body)).toBe('{"v":1}');
    expect(await again.getState('k')).toBe('v2');
    expect(await again.getState('missing')).toBeNull();
    // New series keep unique ids after reopen.
    await again.append([m('z', 1, 1)]);
    expect((await again.series('networks_supported')).map((x) => x.labels.provider).sort()).toEqual([
      'a',
      'z',
    ]);
    await again.close();

    const raw = await DuckDBInstance.create(path);
    const conn = await raw.connect();
    const v = await conn.runAndReadAll("SELECT value FROM meta WHERE key = 'schema_version'");
    expect(v.getRows()[0]?.[0]).toBe('1');
    conn.closeSync();
    raw.closeSync();
  });

  it('stores a batch of snapshots at once, never overwriting one already stored', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    const enc = (x: string) => new TextEncoder().encode(x);
    await s.putSnapshot('stat:a:2026-01-01', enc('old'), '"old"');
    await putSnapshots(s, [
      { key: 'stat:a:2026-01-01', body: enc('new'), etag: '"new"' },
      { key: 'stat:b:2026-01-01', body: enc('b1'), etag: '"b1"' },
      { key: 'stat:b:2026-01-01', body: enc('b2'), etag: '"b2"' },
      { key: 'stat:c:2026-01-01', body: enc('c'), etag: '"c"' },
    ]);
    const text = async (k: string) => new TextDecoder().decode((await s.getSnapshot(k))?.body);
    expect(await text('stat:a:2026-01-01')).toBe('old');
    expect(await text('stat:b:2026-01-01')).toBe('b1');
    expect((await s.getSnapshot('stat:c:2026-01-01'))?.etag).toBe('"c"');
    await putSnapshots(s, []);
    await s.close();
  });
});
