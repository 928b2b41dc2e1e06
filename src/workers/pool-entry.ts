/**
 * Worker-thread entry of the service's pool (src/workers/service-workers.ts): one task at a time,
 * by kind. Everything here is pure computation on what the message carries; the store, caches and
 * sockets stay on the event loop. Protocol: PoolRequest in, PoolReply out (worker-pool.ts).
 */
import { parentPort, type Transferable } from 'node:worker_threads';
import type { PoolReady, PoolReply, PoolRequest } from '../concurrency/worker-pool.ts';
import { evaluateRequest, type RangeRequest } from '../mcp/promql/range-eval.ts';
import type { OgFont } from '../render/fonts.ts';
import type { OgModel } from '../render/og-model.ts';
import type { DatasetTask } from './dataset-task.ts';
import { runSeriesTask, type SeriesTask } from './series-task.ts';

interface Done {
  readonly value: unknown;
  readonly transfer?: readonly Transferable[];
}

// The renderer (satori, resvg) and its fonts load on the first render, so a worker that only
// evaluates (most of a test suite's services) starts without them.
let fonts: OgFont[] | undefined;

const TASKS: Readonly<Record<string, (payload: unknown) => Promise<Done>>> = {
  og: async (p) => {
    const [{ loadInterFonts }, { renderOgPng }] = await Promise.all([
      import('../render/fonts.ts'),
      import('../render/og-render.ts'),
    ]);
    fonts ??= loadInterFonts();
    const r = await renderOgPng(p as OgModel, fonts);
    return { value: r, transfer: [r.png.buffer] };
  },
  promql: async (p) => ({ value: await evaluateRequest(p as RangeRequest) }),
  series: async (p) => ({ value: runSeriesTask(p as SeriesTask) }),
  // DuckDB (the dataset writer's) loads on the first dataset task, as the renderer does.
  'dataset-files': async (p) => (await import('./dataset-task.ts')).runDatasetTask(p as DatasetTask),
  'dataset-csv': async (p) => {
    const { csvFromParquet } = await import('../publication/dataset-files.ts');
    // Hashed here too: the loop checks the hash against the day's and serves it as the ETag.
    const csv = await csvFromParquet(p as Uint8Array);
    return { value: csv, transfer: [csv.body.buffer] };
  },
};

function failure(id: number, err: unknown): PoolReply {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return {
    id,
    ok: false,
    name: err instanceof Error ? err.name : 'Error',
    message: err instanceof Error ? err.message : String(err),
    kind: typeof kind === 'string' ? kind : null,
  };
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (req: PoolRequest) => {
    const task = TASKS[req.kind];
    const run = task ? task(req.payload) : Promise.reject(new Error(`no task of kind "${req.kind}"`));
    run.then(
      (d) => port.postMessage({ id: req.id, ok: true, value: d.value } satisfies PoolReply, d.transfer ?? []),
      (err: unknown) => port.postMessage(failure(req.id, err)),
    );
  });
  // Listening: the pool times tasks from here (its start is not a task's time).
  port.postMessage({ ready: true } satisfies PoolReady);
}
