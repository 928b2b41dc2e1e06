import type { Logger } from './log.ts';
import type { Publication } from './publication/publication.ts';

/**
 * An API replica's poll of the engine its writer fills (issue 27 rules 3 and 4): every `everyMs`
 * the publication reads the newest cycle markers and applies what moved, as the writer's appends
 * do there. The first poll starts here and is not waited for: the replica is ready at once for
 * what SNAPSHOT_DIR holds, and until that poll answers the engine counts as down (live routes
 * 503 `engine_unavailable`; /healthz waits for `first`, bounded). Waiting for it held a replica
 * restarted with its engine away at 503 `starting` for its retries and deadlines (3.5 s refused,
 * 5 s hung, on top of the start-up engine check's 1.75 s and 10–42 s). `beforeServing` (the
 * origin check) runs in the first poll the engine answers, before any view reads it: at once when
 * the engine is up at start, else whenever it comes, with no restart. A failed poll is one WARN
 * until a poll succeeds again (one INFO); the next poll retries.
 */
export function startReplicaPoll(
  pub: Pick<Publication, 'followStore'>,
  everyMs: number,
  log: Logger,
  beforeServing?: () => Promise<void>,
): { readonly stop: () => void; readonly first: Promise<void> } {
  let failing = false;
  let started = 0;
  let pending = beforeServing;
  const once = async () => {
    started = performance.now();
    try {
      const moved = await pub.followStore(pending);
      pending = undefined;
      if (failing) log.info('replica poll answers again');
      failing = false;
      if (moved.size > 0) log.debug('replica followed new cycles', { benchmarks: [...moved].join(',') });
    } catch (e) {
      if (!failing) {
        log.warn(
          'replica poll failed; retried every REPLICA_POLL_MS (frozen days are served, live values are the last good ones or 503 engine_unavailable)',
          { error: String(e) },
        );
      }
      failing = true;
    }
  };
  const first = once();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Polls start every `everyMs` (not `everyMs` after the last one ended): a new cycle waits at
  // most one interval plus one poll's work (bench/split.ts measures it).
  const next = () => {
    timer = setTimeout(
      () => {
        void once().then(() => {
          if (!stopped) next();
        });
      },
      Math.max(0, everyMs - (performance.now() - started)),
    );
    timer.unref();
  };
  // One poll at a time: the first is waited for before the next is timed.
  void first.then(() => {
    if (!stopped) next();
  });
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
    // `once` never rejects: a failed poll is logged and the engine marked down.
    first,
  };
}
