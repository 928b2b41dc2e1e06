import { Worker } from 'node:worker_threads';
import type { OgModel } from './og-model.ts';
import type { OgRenderResult } from './og-render.ts';
import type { OgReply, OgRequest } from './og-worker.ts';

/** Refused at once when the render queue is full (the route answers 503 with Retry-After). */
export class RenderBusyError extends Error {
  constructor(queued: number) {
    super(`${queued} OG renders are already queued`);
    this.name = 'RenderBusyError';
  }
}

interface Pending {
  resolve(r: OgRenderResult): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * How the worker gets loaded. From compiled .js, og-worker.js is started directly. From TypeScript
 * sources (tsx, vitest) Node 20 cannot run a .ts entry, workers do not inherit the parent's module
 * hooks, and `--import tsx` in a worker's execArgv is not honoured on Node 20. So the worker starts
 * from a tiny eval'd bootstrap that calls tsx's ESM API `register()` inside the worker thread and
 * then imports og-worker.ts through that loader. The bootstrap uses only dynamic import(): eval'd
 * code runs as CommonJS, or as ESM if the parent passed --input-type=module, and works as either.
 */
const TSX_BOOTSTRAP = `
import('node:worker_threads')
  .then(({ workerData }) => import(workerData.tsxEsmApi).then((api) => { api.register(); return import(workerData.entry); }));
`;

function startWorker(): Worker {
  const self = new URL(import.meta.url);
  if (!self.pathname.endsWith('.ts')) return new Worker(new URL('./og-worker.js', self));
  const entry = new URL('./og-worker.ts', self).href;
  const tsxEsmApi = import.meta.resolve('tsx/esm/api');
  return new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsxEsmApi, entry } });
}

/** One long-lived render worker; restarted on the next request if it dies. Requests queue in order. */
export class OgWorkerClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** Times a worker was started (1 + restarts); for tests and metrics. */
  starts = 0;

  /**
   * @param maxQueued renders waiting or running at once. ImageService already renders once per
   * (benchmark, data version), so the queue stays at the number of benchmarks in normal use; the
   * bound is for whatever else calls render() (a ~40 ms render × 8 is ~0.3 s of backlog).
   */
  constructor(
    private readonly timeoutMs = 30_000,
    private readonly maxQueued = 8,
  ) {}

  render(model: OgModel): Promise<OgRenderResult> {
    if (this.closed) return Promise.reject(new Error('renderer closed'));
    if (this.pending.size >= this.maxQueued) return Promise.reject(new RenderBusyError(this.pending.size));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<OgRenderResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A stuck render would stall the queue behind it: kill the worker, which rejects the rest.
        this.fail(worker, new Error(`OG render timed out after ${this.timeoutMs} ms`));
        void worker.terminate();
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      // Keep the process alive only while a render is outstanding.
      if (this.pending.size === 1) worker.ref();
      const req: OgRequest = { id, model };
      worker.postMessage(req);
    });
  }

  /** Kills the current worker (as a crash would); the next render starts a fresh one. */
  async terminateWorker(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.fail(w, new Error('render worker terminated'));
    await w.terminate();
  }

  /** Terminates the worker; outstanding renders are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    await this.terminateWorker();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const w = startWorker();
    this.starts += 1;
    w.unref();
    w.on('message', (reply: OgReply) => this.settle(w, reply));
    w.on('error', (err) => this.fail(w, err instanceof Error ? err : new Error(String(err))));
    w.on('exit', (code) => this.fail(w, new Error(`OG render worker exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  private settle(w: Worker, reply: OgReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    clearTimeout(p.timer);
    if (this.pending.size === 0) w.unref();
    if (reply.ok) p.resolve({ png: reply.png, satoriMs: reply.satoriMs, resvgMs: reply.resvgMs });
    else p.reject(new Error(reply.message));
  }

  /** Forgets a dead worker and rejects everything sent to it; the next render starts a fresh one. */
  private fail(w: Worker, err: Error): void {
    if (this.worker !== w) return;
    this.worker = null;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }
}
