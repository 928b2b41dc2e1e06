import { afterEach, describe, expect, it } from 'vitest';
import { EVAL_GRID_MAX_MS, evalPoint, evalStepMs } from '../../src/core/eval-point.ts';
import { type Fixture, fixture, H, NOW } from '../helpers/fixture.ts';

/**
 * Issue 27 rule 5: a live view is evaluated at the later of its benchmark's newest sample and the
 * grid point at or before now (steps of min(20 min, cadence)), and recomputed only when that point
 * moves. Two processes holding the same samples publish the same bytes and ETag; one process keeps
 * its ETag while no sample arrives and the grid has not moved.
 */

const MIN = 60_000;
const TRADE = 'token-trade-coverage';
const NETWORK = 'network-coverage';
const open: Fixture[] = [];
afterEach(async () => {
  for (const f of open.splice(0)) await f.close();
});

/** A fixture (seed 7, 3 days ending at NOW, 12:00 UTC) whose clock reads `now`. */
async function at(now: number): Promise<Fixture> {
  const f = await fixture();
  f.clock.now = now;
  open.push(f);
  return f;
}

/** Every live view a replica serves of one benchmark, as bytes. */
async function views(f: Fixture, slug: string): Promise<Record<string, string>> {
  const p = f.publication;
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const stat = await p.stat(slug, null);
  const series = await p.series(slug, null, '24h', null);
  const index = await p.citable();
  const audit = await p.audit(slug, 'mobula');
  return {
    stat: `${stat.etag} ${text(stat.body)}`,
    series: `${series.etag} ${text(series.body)}`,
    index: `${index.etag} ${text(index.body)}`,
    audit: audit ? `${audit.etag} ${text(audit.body)}` : 'none',
  };
}

/** The time a Stat was evaluated at: its sparkline's last grid point (24 h after the first). */
const pointOf = (s: { sparklineStartMs?: number }) => (s.sparklineStartMs ?? Number.NaN) + 24 * H;

/**
 * The Stat once current: a reader in a new step may get the previous one while it is recomputed.
 * Quiet, within a few ms; the bound (against a hang only) allows 30 s.
 */
async function settled(f: Fixture, slug: string) {
  for (const end = Date.now() + 30_000; Date.now() < end; ) {
    const served = await f.publication.stat(slug, null);
    if (f.publication.isCurrent(served)) return served;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${slug}: no current Stat`);
}

describe('the evaluation point', () => {
  it('is the later of the newest sample and the grid point at or before now', () => {
    expect(evalStepMs(MIN)).toBe(MIN);
    expect(evalStepMs(30 * MIN)).toBe(EVAL_GRID_MAX_MS);
    expect(evalStepMs(6 * H)).toBe(EVAL_GRID_MAX_MS);
    expect(evalPoint(undefined, NOW + 19 * MIN, 30 * MIN)).toBe(NOW);
    expect(evalPoint(NOW + 5 * MIN, NOW + 19 * MIN, 30 * MIN)).toBe(NOW + 5 * MIN);
    expect(evalPoint(NOW + 5 * MIN, NOW + 21 * MIN, 30 * MIN)).toBe(NOW + 20 * MIN);
    expect(evalPoint(NOW - H, NOW + 90_500, MIN)).toBe(NOW + 60_000);
    // A newest sample after now counts as now.
    expect(evalPoint(NOW + 5 * MIN, NOW + 3 * MIN, 30 * MIN)).toBe(NOW + 3 * MIN);
  });
});

describe('same samples, same bytes', () => {
  it('two replicas whose clocks differ inside a grid step publish the same bodies and ETags', async () => {
    const a = await at(NOW + 1 * MIN);
    const b = await at(NOW + 13 * MIN);
    for (const slug of [TRADE, NETWORK]) expect(await views(b, slug)).toEqual(await views(a, slug));
    // The sparkline's last point is the evaluation point, not either clock.
    expect(pointOf((await a.publication.stat(TRADE, null)).value)).toBe(NOW);
  });

  it('one process keeps its bytes while the clock moves inside the step, and recomputes at the next point', async () => {
    const f = await at(NOW + 1 * MIN);
    const first = await f.publication.stat(NETWORK, null);
    f.clock.now = NOW + 19 * MIN;
    expect(f.publication.isCurrent(first)).toBe(true);
    expect(await f.publication.stat(NETWORK, null)).toBe(first);
    f.clock.now = NOW + 20 * MIN;
    expect(f.publication.isCurrent(first)).toBe(false);
    const next = await settled(f, NETWORK);
    expect(next).not.toBe(first);
    expect(pointOf(next.value)).toBe(NOW + 20 * MIN);
  });

  it('new samples move the point to the newest sample at once', async () => {
    const f = await at(NOW + 3 * MIN);
    const before = await f.publication.stat(NETWORK, null);
    const t = NOW + 2 * MIN;
    await f.store.append([{ metric: 'networks_supported', labels: { provider: 'mobula' }, t, v: 999 }]);
    expect(f.publication.isCurrent(before)).toBe(false);
    const after = await f.publication.stat(NETWORK, null);
    expect(pointOf(after.value)).toBe(t);
  });

  it('staleness is judged at the point: at most one step late', async () => {
    // The trade benchmark's newest sample is at NOW; with a 30 min cadence it is stale past 60 min.
    const f = await at(NOW + 65 * MIN);
    expect((await f.publication.stat(TRADE, null)).value.status).toBe('live');
    f.clock.now = NOW + 80 * MIN;
    expect((await settled(f, TRADE)).value.status).toBe('stale');
  });
});
