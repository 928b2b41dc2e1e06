import type { HarnessLog } from '../harness/types.ts';
import type { StartupProgress } from '../startup-state.ts';
import type { HarnessDemoOptions } from './harness-demo-options.ts';

/**
 * The demo's backfill progress lines on stderr (a bar on a terminal, every 10 % otherwise) and its
 * quiet log while it runs: shared by `npm run demo` and `citebench harness --simulate`, so the
 * writer of a split demo reports its backfill exactly as the demo does.
 */
export function backfillProgress(o: {
  readonly days: number;
  readonly log: HarnessLog;
  /** /healthz's start-up progress (the demo's); the writer has none. */
  readonly startup?: StartupProgress;
  readonly write?: (s: string) => void;
  readonly tty?: boolean;
}): Required<Pick<HarnessDemoOptions, 'onProgress' | 'onRpcProgress' | 'log'>> & { done(): void } {
  const write = o.write ?? ((s: string) => process.stderr.write(s));
  const tty = o.tty ?? process.stderr.isTTY === true;
  // The json-rpc family's own window: 6 h of 5-minute slots, at most the demo's days.
  const rpcHours = Math.min(6, Math.round(o.days * 24 * 10) / 10);
  let last = 0;
  // The progress bar reports the backfill (its scripted provider faults show in /metrics as
  // fetch_errors_total); per-cycle lines resume once it is done.
  let backfilling = true;
  return {
    onRpcProgress: (done, total) => {
      o.startup?.backfill('rpc-slots', done, total);
      if (done === total || done % 12 === 0) {
        write(`backfilling ${rpcHours} h of RPC slots in 3 regions: ${done}/${total}\n`);
      }
    },
    log: (level, msg, fields) => {
      if (!(backfilling && (level === 'info' || level === 'warn'))) o.log(level, msg, fields);
    },
    onProgress: ({ done, total }) => {
      o.startup?.backfill('cycles', done, total);
      const pct = Math.floor((done / total) * 100);
      if (tty) {
        const bar = '#'.repeat(Math.floor(pct / 4)).padEnd(25, '.');
        write(`\rbackfilling ${o.days} days: [${bar}] ${done}/${total} cycles`);
        if (done === total) write('\n');
      } else if (pct >= last + 10 || done === total) {
        last = pct;
        write(`backfilling ${o.days} days: ${done}/${total} cycles (${pct}%)\n`);
      }
    },
    done: () => {
      backfilling = false;
    },
  };
}
