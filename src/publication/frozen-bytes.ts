import type { CitableIndex } from '../core/api-schemas.ts';
import type { Site } from '../core/urls.ts';
import type { SnapshotStore } from '../store/sample-store.ts';
import { parseSite, siteKey } from './day-records.ts';
import type { ServedText } from './served.ts';
import { guarded } from './store-guard.ts';

/** Frozen snapshots kept in memory at most (a day of 1,000 benchmarks is ~3,000 with its audits). */
const ROOM = 2_000;

/**
 * Closed days' frozen bytes as read back (from DuckDB, or SNAPSHOT_DIR's files beside an engine):
 * they never change, so a read is held (bounded); a miss is not, as the day may be frozen later.
 */
export class FrozenBytes {
  private readonly held = new Map<string, ServedText>();
  /** The newest day (its start) found frozen by `appeared`. */
  private newestSeen = Number.NEGATIVE_INFINITY;

  constructor(private readonly store: Pick<SnapshotStore, 'getSnapshot'>) {}

  async read(key: string): Promise<ServedText | null> {
    const hit = this.held.get(key);
    if (hit) return hit;
    const stored = await guarded(() => this.store.getSnapshot(key));
    if (!stored) return null;
    const served = { body: stored.body as Uint8Array<ArrayBuffer>, etag: stored.etag };
    if (this.held.size >= ROOM) this.held.clear();
    this.held.set(key, served);
    return served;
  }

  /**
   * True once the day starting at `start` has its index frozen and no later day was seen before:
   * a replica's poll asks for the newest closed day, as another process (the writer) freezes days.
   * One read per poll until that day is there, none after until the next day closes.
   */
  async appeared(start: number): Promise<boolean> {
    if (start <= this.newestSeen) return false;
    if (!(await this.read(`citable:${new Date(start).toISOString().slice(0, 10)}`))) return false;
    this.newestSeen = start;
    return true;
  }

  /** A frozen day's index `site` (provenance, missingSlots), or null when the day is not frozen. */
  async indexSite(day: string): Promise<CitableIndex['site'] | null> {
    const served = await this.read(`citable:${day}`);
    if (!served) return null;
    return (JSON.parse(new TextDecoder().decode(served.body)) as CitableIndex).site;
  }

  /** The site a frozen day was published under (what its dated citations are built from). */
  async site(day: string): Promise<Site | null> {
    const served = await this.read(siteKey(day));
    return served ? parseSite(served.body) : null;
  }
}
