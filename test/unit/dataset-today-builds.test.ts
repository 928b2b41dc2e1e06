/**
 * Today's dataset files are built one build at a time: requests during a build share it or the one
 * queued after it, and a change during a build starts the next build when it ends, never beside it.
 * A request never gets files built before it arrived.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DatasetFiles } from '../../src/publication/dataset-files.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';

const TODAY = new Date(NOW).toISOString().slice(0, 10);
const rowsOf = (csv: Uint8Array) => new TextDecoder().decode(csv).trim().split('\n').length - 1;

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** Holds every build's answer until released; counts builds and the most running at once. */
function gatedBuilds(fx: Fixture) {
  const dataset = fx.publication.dataset;
  const build = dataset.build.bind(dataset);
  const state = { started: 0, read: 0, running: 0, most: 0 };
  let release: () => void = () => {};
  let gate = new Promise<void>((r) => {
    release = r;
  });
  vi.spyOn(dataset, 'build').mockImplementation(async (start, provenance) => {
    state.started++;
    state.running++;
    state.most = Math.max(state.most, state.running);
    try {
      // Read now, answer when released: the build is of what was stored when it started.
      const files = await build(start, provenance);
      state.read++;
      await gate;
      return files;
    } finally {
      state.running--;
    }
  });
  return {
    state,
    /** Lets every build held so far (and every later one) run. */
    open() {
      release();
      gate = Promise.resolve();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `ok` holds: quiet, within a few ms; the bound (against a hang only) allows 30 s. */
async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 30_000; !ok(); await sleep(10)) {
    if (Date.now() > end) throw new Error('timed out');
  }
}

/** Counts the requests that reached today's files (the step where each shares a build or queues one). */
function todayAsks(fx: Fixture): { readonly count: number } {
  const spy = vi.spyOn(
    fx.publication.dataset as unknown as { todayFiles(...a: unknown[]): unknown },
    'todayFiles',
  );
  return {
    get count() {
      return spy.mock.calls.length;
    },
  };
}

describe("today's dataset files", () => {
  it('a change during a build queues one build after it: never two at once, and every request sees what was stored before it', async () => {
    f = await fixture({ days: 1 });
    const builds = gatedBuilds(f);
    const asks = todayAsks(f);
    const csv = async () => {
      const r = await f?.publication.dataset.file(TODAY, 'csv');
      if (r?.kind !== 'ok') throw new Error(`today's CSV: ${JSON.stringify(r)}`);
      return r.file.body;
    };
    const first = csv();
    // The first build has read the store (it is held before answering).
    await until(() => builds.state.read === 1);
    expect(builds.state.started).toBe(1);
    // Samples arrive while the first build runs; three requests come after them.
    await f.store.append([
      { metric: 'networks_supported', labels: { provider: 'codex' }, t: NOW - 60_000, v: 140 },
    ]);
    const later = [csv(), csv(), f.publication.dataset.index()];
    // Once the three have reached today's files (on the code before, each started its own build
    // there, beside the held one):
    await until(() => asks.count === 4);
    expect(builds.state.most).toBe(1);
    builds.open();
    const [a, b, c, idx] = await Promise.all([first, ...later]);
    expect(builds.state.most).toBe(1);
    // The held build and one more: the three later requests shared the second.
    expect(builds.state.started).toBe(2);
    expect(b).toBe(c);
    expect(rowsOf(b as Uint8Array)).toBe(rowsOf(await first) + 1);
    const index = idx as Awaited<ReturnType<Fixture['publication']['dataset']['index']>>;
    expect(index.days.at(-1)?.rows).toBe(rowsOf(b as Uint8Array));
    expect(a).not.toBe(b);
    // No change since: served from the last build.
    await csv();
    expect(builds.state.started).toBe(2);
  });

  it('a failed build is not kept: the next request builds again', async () => {
    f = await fixture({ days: 1 });
    const dataset = f.publication.dataset;
    const build = dataset.build.bind(dataset);
    let fail = true;
    vi.spyOn(dataset, 'build').mockImplementation((start, provenance): Promise<DatasetFiles> => {
      if (fail) return Promise.reject(new Error('disk full'));
      return build(start, provenance);
    });
    await expect(dataset.file(TODAY, 'csv')).rejects.toThrow('disk full');
    fail = false;
    const r = await dataset.file(TODAY, 'csv');
    expect(r.kind).toBe('ok');
  });
});
