import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prng } from '../../src/core/prng.ts';
import type { Matcher, Sample } from '../../src/core/samples.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';

/**
 * The in-memory recent tail (src/store/recent-samples.ts) must answer exactly what SQL answers: the
 * same store with the tail (a short horizon, so ranges cross its floor) and without it (every read
 * in SQL) get the same appends and must give the same reads, before and after a reopen.
 */
const HORIZON = 1_000;

function randomBatch(r: () => number, tMax: number): Sample[] {
  const out: Sample[] = [];
  const n = 1 + Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const provider = `p${Math.floor(r() * 6)}`;
    const metric = r() < 0.7 ? 'm_a' : 'm_b';
    // Mostly new times near the front, some late and duplicate ones far behind it.
    const t = r() < 0.8 ? tMax - 10 * Math.floor(r() * 20) : Math.floor(r() * tMax);
    out.push({
      metric,
      labels: { provider, ...(r() < 0.3 ? { chain: 'c1' } : {}) },
      t,
      v: Math.floor(r() * 1000),
    });
  }
  return out;
}

async function reads(s: DuckDbStore, r: () => number, tMax: number): Promise<unknown[]> {
  const out: unknown[] = [];
  const matchers: Matcher[][] = [
    [],
    [{ name: 'provider', op: '=~', value: 'p1|p2' }],
    [{ name: 'chain', op: '=', value: 'c1' }],
  ];
  for (let i = 0; i < 12; i++) {
    const metric = r() < 0.5 ? 'm_a' : 'm_b';
    const ms = matchers[Math.floor(r() * matchers.length)] ?? [];
    const a = Math.floor(r() * (tMax + 100)) - 50;
    const b = a + Math.floor(r() * 3 * HORIZON);
    out.push(await s.select({ metric, matchers: ms, after: a, until: b }));
    out.push(await s.latest({ metric, matchers: ms, at: b }));
    out.push(await s.latest({ metric, matchers: ms, at: b, notBefore: a }));
  }
  out.push(await s.timeBounds(['m_a']), await s.timeBounds(), await s.timeBounds(['m_b', 'none']));
  return out;
}

describe('recent samples in memory', () => {
  it('answers select, latest and timeBounds exactly as SQL does, across appends and a reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recent-'));
    try {
      const open = (name: string, recentHorizonMs: number) =>
        openDuckDbStore({ path: join(dir, name), recentHorizonMs });
      let withTail = await open('tail.duckdb', HORIZON);
      let sqlOnly = await open('sql.duckdb', 0);
      const r = prng(7);
      let tMax = 500;
      for (let round = 0; round < 24; round++) {
        tMax += Math.floor(r() * 300);
        const batch = randomBatch(r, tMax);
        expect(await withTail.append(batch)).toBe(await sqlOnly.append(batch));
        const seed = Math.floor(r() * 1e9);
        expect(await reads(withTail, prng(seed), tMax)).toEqual(await reads(sqlOnly, prng(seed), tMax));
        if (round === 12) {
          await withTail.close();
          await sqlOnly.close();
          withTail = await open('tail.duckdb', HORIZON);
          sqlOnly = await open('sql.duckdb', 0);
          expect(await reads(withTail, prng(1), tMax)).toEqual(await reads(sqlOnly, prng(1), tMax));
        }
      }
      await withTail.close();
      await sqlOnly.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets a read issued after an append (not awaited) see it', async () => {
    const s = await openDuckDbStore({ path: ':memory:' });
    await s.append([{ metric: 'm', labels: { provider: 'a' }, t: 10, v: 1 }]);
    const appended = s.append([{ metric: 'm', labels: { provider: 'a' }, t: 20, v: 2 }]);
    const [latest, bounds, range] = await Promise.all([
      s.latest({ metric: 'm', at: 100 }),
      s.timeBounds(['m']),
      s.select({ metric: 'm', after: 0, until: 100 }),
    ]);
    await appended;
    expect(latest.map((x) => x.v)).toEqual([2]);
    expect(bounds).toEqual({ min: 10, max: 20 });
    expect(range.map((x) => x.t)).toEqual([10, 20]);
    await s.close();
  });
});
