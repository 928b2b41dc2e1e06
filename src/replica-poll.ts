import { within } from './concurrency/deadline.ts';
import type { Logger } from './log.ts';
import type { Publication } from './publication/publication.ts';

/** How long start-up waits for a replica's first poll before it serves what it has. */
const FIRST_POLL_MS = 5_000;

/**
 * An API replica's poll of the engine its writer fills (issue 27 rule 3): every `everyMs` the
 * publication reads the newest cycle markers and applies what moved, as the writer's appends do
 * there. The first poll runs before the replica is ready (bounded), so the region values and
 * newest samples stored so far are known to its first request. A failed poll is one WARN until a
 * poll succeeds again (one INFO); the next poll retries.
 */
export async function startReplicaPoll(
  pub: Pick<Publication, 'followStore'>,
  everyMs: number,
  log: Logger,
): Promise<() => void> {
  let failing = false;
  const once = async () => {
    try {
      const moved = await pub.followStore();
      if (failing) log.info('replica poll answers again');
      failing = false;
      if (moved.size > 0) log.debug('replica followed new cycles', { benchmarks: [...moved].join(',') });
    } catch (e) {
      if (!failing) log.warn('replica poll failed; retried every REPLICA_POLL_MS', { error: String(e) });
      failing = true;
    }
  };
  await within(once(), FIRST_POLL_MS);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    timer = setTimeout(() => {
      void once().then(() => {
        if (!stopped) next();
      });
    }, everyMs);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
