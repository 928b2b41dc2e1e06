import type { SlotRef } from '../core/missing-slots.ts';
import type { HarnessLog } from '../harness/types.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { readTried, slotKey } from './backfill-plan.ts';

// The backfill plan's reads of the store, for a store on an engine that may be down: the writer of
// a split demo (`citebench harness --simulate`) starts, plans and buffers without it.

/** First wait before reading again, doubled up to the cap (the scheduler's resume read does the same). */
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 60_000;

/**
 * Whether the store holds no sample yet. An engine that does not answer reads as empty: a writer
 * with no plan in its DATA_DIR plans a new backfill and buffers it (re-sending a sample the engine
 * has is harmless), rather than waiting for an engine it does not need to plan.
 */
export async function storeLooksEmpty(
  store: Pick<SampleStore, 'timeBounds'>,
  log: HarnessLog,
): Promise<boolean> {
  try {
    return (await store.timeBounds()) === null;
  } catch (e) {
    log(
      'info',
      `harness demo: the store does not answer (${String(e)}): planning a new backfill, its cycles are buffered`,
    );
    return true;
  }
}

/**
 * The slots a resumed plan already ran (their markers), read again while the store does not answer:
 * a WARN, then retries 5 s doubling to 60 s. Running every slot again instead would re-send days of
 * cycles; the plan waits for the one read it needs. `stopped` ends the wait (a shutdown).
 */
export async function readTriedRetrying(
  store: Pick<SampleStore, 'select'>,
  from: number,
  until: number,
  log: HarnessLog,
  stopped: () => boolean,
): Promise<(s: SlotRef) => boolean> {
  for (let wait = RETRY_FIRST_MS; ; wait = Math.min(RETRY_MAX_MS, wait * 2)) {
    try {
      return await readTried(store, from, until);
    } catch (e) {
      if (stopped()) throw e;
      log(
        'warn',
        `harness demo: cannot read which planned slots ran, retrying in ${wait / 1000} s: ${String(e)}`,
      );
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * The catch-up's read of the slots from the newest planned one on. Every slot the plan held before
 * this extension ran (the backfill, or an earlier round), and nobody else plans the new ones, so a
 * store that does not answer means exactly those: nothing to wait for.
 */
export async function readTriedSince(
  store: Pick<SampleStore, 'select'>,
  from: number,
  until: number,
  planned: readonly SlotRef[],
): Promise<(s: SlotRef) => boolean> {
  return readTried(store, from, until).catch(() => {
    const ran = new Set(planned.map(slotKey));
    return (s: SlotRef) => ran.has(slotKey(s));
  });
}
