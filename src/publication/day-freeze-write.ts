import { canonicalJson } from '../core/canonical-json.ts';
import { dayEnd } from '../core/dates.ts';
import type { MissingSlot } from '../core/missing-slots.ts';
import { putSnapshots } from '../store/sample-store.ts';
import { citableIndex } from './citable-index.ts';
import { computeStat } from './compute.ts';
import { type DayFreezerOptions, withMissing } from './day-freeze-rules.ts';
import { auditEntries, siteEntry } from './day-records.ts';
import { readProvenance } from './provenance-read.ts';
import { serveText } from './served.ts';

/**
 * Writes a closed day's frozen records (src/publication/day-freezer.ts decides when): its Stats with
 * their missing slots, the specs, the audits and site, then the index last, whose presence marks
 * the day frozen.
 */
export async function writeFrozenDay(
  opts: DayFreezerOptions,
  day: string,
  start: number,
  missing: readonly MissingSlot[],
): Promise<void> {
  const { store, specs } = opts;
  const site = opts.site();
  const stats = (
    await Promise.all(specs.map((s) => computeStat(store, s, null, dayEnd(start), site, { pinDay: day })))
  ).map((st) => withMissing(st, day, missing));
  // One batch where the store has one (a DuckDB insert costs ~4 ms whatever its size: 1,000
  // Stats one by one took 6.2 s of a start-up, 96 ms as one transaction).
  const entries = stats.map((st) => ({ key: `stat:${st.slug}:${day}`, ...serveText(canonicalJson(st)) }));
  entries.push({ key: `specs:${day}`, ...serveText(canonicalJson(specs)) });
  await putSnapshots(store, entries);
  await putSnapshots(store, [...(await auditEntries(store, specs, day, start, site)), siteEntry(day, site)]);
  // The day's builds: every harness_build_info sample stamped within it (the Stats' own window).
  const provenance = await readProvenance(opts, start - 1, dayEnd(start));
  const index = serveText(canonicalJson(citableIndex(stats, opts.bySlug, site, day, provenance, missing)));
  await store.putSnapshot(`citable:${day}`, index.body, index.etag);
}
