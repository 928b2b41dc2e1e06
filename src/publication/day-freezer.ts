import type { CitableIndex, Stat } from '../core/api-schemas.ts';
import { DAY_MS, dayEnd, dayStart, parseDay } from '../core/dates.ts';
import type { Site } from '../core/urls.ts';
import { putSnapshots } from '../store/sample-store.ts';
import { specMetrics } from './compute.ts';
import {
  AWAIT_POLL_MS,
  closedBefore,
  type DayFreezerOptions,
  type DayResult,
  FREEZE_GRACE_MS,
  type FrozenAuditResult,
  type NotFrozen,
  type SnapshotResult,
} from './day-freeze-rules.ts';
import { writeFrozenDay } from './day-freeze-write.ts';
import { auditEntries, auditKey, siteEntry, siteKey, siteOfFrozenStat } from './day-records.ts';
import { readDaySlots } from './day-slots.ts';
import { FreezeRetry } from './freeze-retry.ts';
import { FrozenBytes } from './frozen-bytes.ts';
import type { ServedText } from './served.ts';
import { guarded } from './store-guard.ts';
import { UnknownBenchmarkError } from './types.ts';

export {
  closedBefore,
  type DayResult,
  FREEZE_GRACE_MS,
  type FrozenAuditResult,
  type NotFrozen,
  type SnapshotResult,
} from './day-freeze-rules.ts';

/**
 * Closed days: freezing each one's Stats, audits, site, spec text and index once, and serving those
 * bytes forever (results are dated and never overwritten).
 */
export class DayFreezer {
  private readonly freezing = new Map<string, Promise<void>>();
  /** Frozen bytes never change: once read they are held (bounded). */
  private readonly frozen: FrozenBytes;
  private freezeTimer: NodeJS.Timeout | undefined;
  private readonly retry: FreezeRetry;
  /** First UTC day with any sample (undefined: not read yet). */
  private firstDayStart: number | null | undefined;
  /** Last day frozen so far (its start, epoch ms); later writes into it or before are late. */
  private frozenThrough = Number.NEGATIVE_INFINITY;
  /** Late writes per frozen day (its start): appends seen here, or samples found in the store. */
  private readonly late = new Map<number, number>();
  /** Closed days (their start) whose freeze waits for planned slots not tried yet: how many. */
  private readonly awaiting = new Map<number, number>();
  private awaitTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: DayFreezerOptions) {
    this.retry = new FreezeRetry(opts.clock, opts.clockRate ?? 1);
    this.frozen = new FrozenBytes(opts.store);
  }

  /** Closed days waiting for planned slots (start → slots left), for the log and tests. */
  get awaitingDays(): ReadonlyMap<number, number> {
    return this.awaiting;
  }

  /** Writes into already frozen days (they change nothing published). */
  get lateWrites(): number {
    let n = 0;
    for (const v of this.late.values()) n += v;
    return n;
  }

  /** Failed freezes since start-up (each retried with backoff). */
  get freezeFailures(): number {
    return this.retry.failures;
  }

  /** An append wrote samples from `minT` on. */
  noteSamples(minT: number): void {
    if (this.firstDayStart !== undefined && (this.firstDayStart === null || minT < this.firstDayStart)) {
      this.firstDayStart = dayStart(minT);
    }
    const d = dayStart(minT);
    // A day waiting for its planned slots is not frozen: writes into it are what it waits for.
    if (d <= this.frozenThrough && !this.awaiting.has(d)) this.late.set(d, (this.late.get(d) ?? 0) + 1);
  }

  /**
   * A frozen day holds `extra` more samples in the store than its dataset froze: written while the
   * service was stopped or by a separate harness. An append counted here is among them, so the
   * day counts the larger of the two, never both.
   */
  noteStoredLate(start: number, extra: number): void {
    if (extra > (this.late.get(start) ?? 0)) this.late.set(start, extra);
  }

  /**
   * First UTC day with any sample, or null when the store is empty (read once). An engine that cannot
   * be read leaves it to SNAPSHOT_DIR's first frozen day, not kept: the engine's replaces it once back.
   */
  async firstDay(): Promise<number | null> {
    if (this.firstDayStart !== undefined) return this.firstDayStart;
    let bounds: { min: number } | null;
    try {
      bounds = await guarded(() => this.opts.store.timeBounds(this.opts.specs.flatMap(specMetrics)));
    } catch (e) {
      const frozen = await this.opts.store.firstFrozenDay?.().catch(() => null);
      const parsed = frozen ? parseDay(frozen) : null;
      if (parsed?.ok) return parsed.start;
      throw e;
    }
    // An append may have set it meanwhile; keep the earlier of the two.
    const first = bounds === null ? null : dayStart(bounds.min);
    if (this.firstDayStart === undefined || this.firstDayStart === null) this.firstDayStart = first;
    else if (first !== null) this.firstDayStart = Math.min(this.firstDayStart, first);
    return this.firstDayStart;
  }

  /** Validates a requested day and says why it cannot be served (the real reason, not "malformed"). */
  async checkDay(day: string): Promise<DayResult> {
    const parsed = parseDay(day);
    if (!parsed.ok) return { kind: 'bad_date', message: parsed.message };
    const now = this.opts.clock();
    const today = dayStart(now);
    if (parsed.start > today) return { kind: 'bad_date', message: `${day} is in the future.` };
    if (parsed.start === today) return { kind: 'today', day, start: parsed.start };
    // A frozen day is served from its bytes alone: it never waits on (or fails with) the engine.
    if (parsed.start < closedBefore(now) && (await this.frozen.read(`citable:${day}`))) {
      return { kind: 'ok', day, start: parsed.start };
    }
    const first = await this.firstDay();
    if (first === null || parsed.start < first) {
      const since =
        first === null
          ? 'no data has been recorded yet'
          : `the first is ${new Date(first).toISOString().slice(0, 10)}`;
      return { kind: 'bad_date', message: `${day} is before the first snapshot (${since}).` };
    }
    if (parsed.start >= closedBefore(now)) {
      return {
        kind: 'not_frozen',
        message: `${day} is frozen ${FREEZE_GRACE_MS / 60_000} minutes after it closes; retry shortly.`,
      };
    }
    const left = this.awaiting.get(parsed.start);
    if (left !== undefined) {
      const what = Number.isNaN(left)
        ? "the demo's backfill plan is read"
        : `the ${left} backfill slot${left === 1 ? '' : 's'} planned for it still to run have run`;
      return {
        kind: 'not_frozen',
        message: `${day} is closed; it is frozen once ${what}; retry shortly.`,
        retryAfter: Math.max(1, Math.ceil(AWAIT_POLL_MS / 1000)),
      };
    }
    return { kind: 'ok', day, start: parsed.start };
  }

  /** A closed day past its grace without its frozen bytes: its freeze failed or is still running. */
  private pending(day: string): NotFrozen {
    const at = this.retry.retryAt;
    const rate = this.opts.clockRate ?? 1;
    const retryAfter = Math.max(1, Math.ceil(at === undefined ? 60 : (at - this.opts.clock()) / 1000 / rate));
    return {
      kind: 'not_frozen',
      message: `${day} is closed but not frozen yet; its freeze is retried, ask again in ${retryAfter} s.`,
      retryAfter,
    };
  }

  /** True once the newest closed day was frozen since last asked (a replica's poll: the writer froze it). */
  newFrozenDay(): Promise<boolean> {
    return this.frozen.appeared(closedBefore(this.opts.clock()) - DAY_MS);
  }

  /**
   * Day snapshots are real: today is the live index; a closed day is served from the bytes frozen
   * shortly after it closed (or at start-up), byte-identical forever, whatever arrives later.
   */
  async snapshot(day: string): Promise<SnapshotResult> {
    const d = await this.checkDay(day);
    if (d.kind === 'today') return { kind: 'live', served: await this.opts.liveIndex(), day };
    if (d.kind !== 'ok') return d;
    const served = await this.frozen.read(`citable:${day}`);
    if (!served) return this.pending(day);
    return { kind: 'frozen', served, day };
  }

  /**
   * The frozen Stat of a closed day, served byte-identical forever. `today` when the day is the
   * current one (its values are live), `not_frozen`/`bad_date` with the real reason otherwise.
   */
  async frozenStat(
    slug: string,
    day: string,
  ): Promise<{ kind: 'ok'; served: ServedText } | Exclude<DayResult, { kind: 'ok' }>> {
    if (!this.opts.bySlug.has(slug)) throw new UnknownBenchmarkError(slug);
    const d = await this.checkDay(day);
    if (d.kind !== 'ok') return d;
    const served = await this.frozen.read(`stat:${slug}:${day}`);
    if (!served) return this.pending(day);
    return { kind: 'ok', served };
  }

  /**
   * A provider's audit as frozen with the day (`window`: the one a window-mode row links to),
   * byte-identical forever; a day that is not frozen answers as its Stat does.
   */
  async frozenAudit(
    slug: string,
    provider: string,
    day: string,
    window: boolean,
  ): Promise<FrozenAuditResult> {
    const spec = this.opts.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    const d = await this.checkDay(day);
    if (d.kind === 'bad_date') return d;
    if (!spec.providers.some((p) => p.slug === provider)) return { kind: 'unknown_provider' };
    if (d.kind !== 'ok') return d;
    const served = await this.frozen.read(auditKey(slug, provider, day, window));
    if (!served) return this.pending(day);
    return { kind: 'ok', served };
  }

  /** A frozen day's index `site` (provenance, missingSlots), or null when the day is not frozen. */
  frozenIndexSite(day: string): Promise<CitableIndex['site'] | null> {
    return this.frozen.indexSite(day);
  }

  /** The site a frozen day was published under (what its dated citations are built from). */
  frozenSite(day: string): Promise<Site | null> {
    return this.frozen.site(day);
  }

  /**
   * Freezes one closed day: each benchmark's unfiltered Stat evaluated at the day's last
   * millisecond from that day's samples, with every link pinned to the day, the spec text they
   * were computed with, every audit they link to, the site they name, and the index of those
   * Stats, all serialized canonically. Stored once: an existing snapshot is never rewritten. The
   * index goes last, so it marks a complete freeze.
   *
   * Only when every slot the day expects was tried (src/core/missing-slots.ts): a day with planned
   * slots still to run (the demo's backfill) is left unfrozen and marked awaiting; slots nobody
   * tried are frozen with it as `missingSlots` (index site, each Stat with a methodology statement).
   */
  freezeDay(day: string): Promise<void> {
    const running = this.freezing.get(day);
    if (running) return running;
    const { store } = this.opts;
    const p = guarded(async () => {
      if (await store.getSnapshot(`citable:${day}`)) return this.backfill(day);
      const parsed = parseDay(day);
      if (!parsed.ok) throw new Error(parsed.message);
      const slots = await readDaySlots(
        this.opts,
        this.opts.slots?.() ?? { kind: 'live' },
        parsed.start,
        dayEnd(parsed.start),
      );
      if (slots === null || slots.awaited.length > 0) {
        // The plan is not read yet (every closed day waits) or still has slots to run here.
        this.awaiting.set(parsed.start, slots?.awaited.length ?? Number.NaN);
        return;
      }
      this.awaiting.delete(parsed.start);
      await writeFrozenDay(this.opts, day, parsed.start, slots.missing);
    }).finally(() => this.freezing.delete(day));
    this.freezing.set(day, p);
    return p;
  }

  /**
   * A day frozen before audits and the site were frozen with it: both are added once, under the
   * site its own Stats were published with (read back from them, never the running one).
   */
  private async backfill(day: string): Promise<void> {
    const { store, specs } = this.opts;
    if (await store.getSnapshot(siteKey(day))) return;
    const parsed = parseDay(day);
    if (!parsed.ok) return;
    for (const spec of specs) {
      const stored = await store.getSnapshot(`stat:${spec.slug}:${day}`);
      if (!stored) continue;
      const site = siteOfFrozenStat(JSON.parse(new TextDecoder().decode(stored.body)) as Stat);
      const audits = await auditEntries(store, specs, day, parsed.start, site);
      await putSnapshots(store, [...audits, siteEntry(day, site)]);
      return;
    }
  }

  /** Closed days from the first day with data, newest first (the one most likely to be asked for). */
  private async closedDays(): Promise<number[]> {
    const first = await this.firstDay();
    const until = closedBefore(this.opts.clock());
    const out: number[] = [];
    if (first !== null) for (let d = until - DAY_MS; d >= first; d -= DAY_MS) out.push(d);
    return out;
  }

  /**
   * Freezes one closed day unless it is frozen (or completes an older freeze); true when frozen now.
   * A day still awaiting planned slots stays unfrozen (false; it is in `awaiting`).
   */
  private async freezeOne(d: number): Promise<boolean> {
    const day = new Date(d).toISOString().slice(0, 10);
    const had = await guarded(() => this.opts.store.getSnapshot(`citable:${day}`));
    const complete =
      had !== null && (await guarded(() => this.opts.store.getSnapshot(siteKey(day)))) !== null;
    if (!complete) await this.freezeDay(day);
    if (this.awaiting.has(d)) return false;
    this.frozenThrough = Math.max(this.frozenThrough, d);
    return !had;
  }

  /** Freezes every closed day that is not frozen yet; returns how many it froze. */
  async freezeClosedDays(): Promise<number> {
    let n = 0;
    for (const d of await this.closedDays()) if (await this.freezeOne(d)) n++;
    return n;
  }

  /**
   * Freezes the newest closed day now (the returned promise: a start-up waits for it), every older
   * closed day not frozen yet in the background (a first start on 90 days of history must not hold
   * back the first request; until then such a day answers "not frozen yet, retry shortly"), then
   * `andThen` (in the background too), then each day again at 00:00 UTC plus the grace period. A
   * pass with a failed freeze is run again with backoff (FreezeRetry), each failure counted.
   */
  start(onError: (e: unknown) => void, andThen: (closedBefore: number) => Promise<unknown>): Promise<void> {
    const pass = async (): Promise<void> => {
      let failed = false;
      const fail = (e: unknown) => {
        failed = true;
        this.retry.failures++;
        onError(e);
      };
      const [newest, ...older] = await this.closedDays().catch((e: unknown) => {
        fail(e);
        return [] as number[];
      });
      if (newest !== undefined) await this.freezeOne(newest).catch(fail);
      void (async () => {
        for (const d of older) {
          if (this.closed) return;
          await this.freezeOne(d).catch(fail);
        }
        await andThen(closedBefore(this.opts.clock())).catch(onError);
        if (!this.closed) this.retry.after(failed, () => void pass());
        this.watchAwaiting(onError, andThen);
      })();
    };
    const tick = async () => {
      await pass();
      if (this.closed) return;
      // The next close plus grace: from 00:05 that is today's 00:10, not tomorrow's. The wait is
      // real time: on the demo clock (DEMO_SPEED=600) a day is 144 s.
      const next = closedBefore(this.opts.clock()) + DAY_MS + FREEZE_GRACE_MS;
      const wait = (next - this.opts.clock()) / (this.opts.clockRate ?? 1);
      this.freezeTimer = setTimeout(() => void tick(), Math.max(1000, wait));
      this.freezeTimer.unref();
    };
    return tick();
  }

  /**
   * While closed days wait for planned slots, looks at them again every AWAIT_POLL_MS (newest
   * first) and, once one is frozen, runs `andThen` (its dataset) again.
   */
  private watchAwaiting(
    onError: (e: unknown) => void,
    andThen: (closedBefore: number) => Promise<unknown>,
  ): void {
    if (this.awaitTimer || this.closed || this.awaiting.size === 0) return;
    this.awaitTimer = setTimeout(() => {
      void (async () => {
        let froze = false;
        for (const d of [...this.awaiting.keys()].sort((a, b) => b - a)) {
          if (this.closed) return;
          const now = await this.freezeOne(d).catch((e: unknown) => {
            onError(e);
            return false;
          });
          froze = now || froze;
        }
        if (froze) await andThen(closedBefore(this.opts.clock())).catch(onError);
        this.awaitTimer = undefined;
        this.watchAwaiting(onError, andThen);
      })();
    }, AWAIT_POLL_MS);
    this.awaitTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.retry.cancel();
    if (this.freezeTimer) clearTimeout(this.freezeTimer);
    if (this.awaitTimer) clearTimeout(this.awaitTimer);
  }
}
