/**
 * A worker entry for test/unit/worker-pool.test.ts, speaking the pool's protocol (ready once it listens): `spin` holds its
 * thread for `ms` and answers its `tag` with the thread id and when it ran (`from`, `to`: epoch ms, so
 * a test sees which tasks overlapped without timing them); `fail` throws an error with a `kind`.
 */
import { parentPort, threadId } from 'node:worker_threads';
import type { PoolReady, PoolReply, PoolRequest } from '../../src/concurrency/worker-pool.ts';

if (parentPort) {
  const port = parentPort;
  // POOL_TEST_BOOT_MS: a slow start (a slow machine's tsx and imports), before it listens.
  const bootMs = Number(process.env.POOL_TEST_BOOT_MS ?? 0);
  const end = Date.now() + bootMs;
  while (Date.now() < end) {
    // spin: the start holds the thread
  }
  port.on('message', (req: PoolRequest) => {
    const p = req.payload as { ms?: number; tag?: string };
    if (req.kind === 'fail') {
      port.postMessage({
        id: req.id,
        ok: false,
        name: 'Error',
        message: 'it failed',
        kind: 'refused',
      } satisfies PoolReply);
      return;
    }
    const from = Date.now();
    const end = from + (p.ms ?? 0);
    while (Date.now() < end) {
      // spin: a computation that never yields
    }
    const value = { tag: p.tag, thread: threadId, from, to: Date.now() };
    port.postMessage({ id: req.id, ok: true, value } satisfies PoolReply);
  });
  port.postMessage({ ready: true } satisfies PoolReady);
}
