import { availableParallelism } from 'node:os';
import type { Transferable, Worker } from 'node:worker_threads';
import { startTsWorker } from './ts-worker.ts';

/** Refused at once: the task's class already has its bound of tasks waiting. */
export class PoolBusyError extends Error {
  constructor(
    readonly kind: string,
    queued: number,
  ) {
    super(`${queued} ${kind} tasks are already waiting for a worker`);
    this.name = 'PoolBusyError';
  }
}

/** A task ran past its timeout; its worker was killed. */
export class PoolTimeoutError extends Error {
  constructor(kind: string, timeoutMs: number) {
    super(`${kind} task exceeded ${timeoutMs} ms in its worker`);
    this.name = 'PoolTimeoutError';
  }
}

/** A task that threw in the worker: its error's name, message and `kind` field, if any. */
export class PoolTaskError extends Error {
  constructor(
    message: string,
    readonly remoteName: string,
    readonly remoteKind: string | null,
  ) {
    super(message);
    this.name = 'PoolTaskError';
  }
}

/** What the pool sends a worker, one at a time, and what comes back (src/workers/pool-entry.ts). */
export interface PoolRequest {
  readonly id: number;
  readonly kind: string;
  readonly payload: unknown;
}

export type PoolReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly name: string;
      readonly message: string;
      readonly kind: string | null;
    };

/** What a worker posts once it listens, before any reply: a task's timeout runs from then. */
export interface PoolReady {
  readonly ready: true;
}

/**
 * A worker that has not said it is ready after this long is stopped. Its start (tsx's loader, the
 * entry's imports) is not any task's time: timed against the first task's timeout, a slow machine's
 * start killed the worker, and the next task started another, which was killed the same way.
 */
const BOOT_TIMEOUT_MS = 60_000;

export interface RunOptions {
  /** The worker is killed (and restarted for the next task) when the task runs longer. */
  readonly timeoutMs: number;
  /** Buffers moved to the worker instead of copied (the caller's views of them become empty). */
  readonly transfer?: readonly Transferable[];
}

interface Job {
  readonly kind: string;
  readonly payload: unknown;
  readonly opts: RunOptions;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker | null;
  /** The worker said it is ready (PoolReady). */
  ready: boolean;
  job: Job | null;
  id: number;
  timer: NodeJS.Timeout | null;
  boot: NodeJS.Timeout | null;
}

/** The pool's default size: one thread per core beside the event loop's, at least one. */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

export interface WorkerPoolOptions {
  readonly size: number;
  /** The worker's entry, started by startTsWorker(from, name). */
  readonly from: string;
  readonly name: string;
  /** Tasks of one class waiting at most; beyond that a run is refused (PoolBusyError). */
  readonly maxQueued: number;
  /** A smaller (or larger) bound for some classes, by name. */
  readonly maxQueuedByKind?: Readonly<Record<string, number>>;
}

/**
 * A fixed set of worker threads, one task each at a time. Tasks wait in one queue per class and a
 * freed worker takes the next class in turn, so a class with a long backlog (OG renders of ~40 ms)
 * does not hold up the others (a series of a few ms). A task past its timeout kills its worker: the
 * one stuck task fails, the rest keep their places, and the slot starts a fresh worker for the next.
 */
export class WorkerPool {
  private readonly slots: Slot[];
  private readonly queues = new Map<string, Job[]>();
  private lastKind: string | undefined;
  private nextId = 1;
  private closed = false;
  /** Workers started (restarts included) and tasks finished, since start (tests and metrics). */
  starts = 0;
  finished = 0;
  private readonly finishedBy = new Map<string, number>();
  /** close() waiting for the running tasks to end. */
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: WorkerPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, opts.size) }, () => ({
      worker: null,
      ready: false,
      job: null,
      id: 0,
      timer: null,
      boot: null,
    }));
  }

  get size(): number {
    return this.slots.length;
  }

  /** Tasks of a class finished (answered or thrown in the worker), since start. */
  finishedOf(kind: string): number {
    return this.finishedBy.get(kind) ?? 0;
  }

  /** Tasks waiting for a worker, per class. */
  waiting(kind: string): number {
    return this.queues.get(kind)?.length ?? 0;
  }

  run<T>(kind: string, payload: unknown, opts: RunOptions): Promise<T> {
    if (this.closed) return Promise.reject(new Error('worker pool closed'));
    let q = this.queues.get(kind);
    if (!q) {
      q = [];
      this.queues.set(kind, q);
    }
    const bound = this.opts.maxQueuedByKind?.[kind] ?? this.opts.maxQueued;
    if (q.length >= bound) return Promise.reject(new PoolBusyError(kind, q.length));
    const queue = q;
    const done = new Promise<T>((resolve, reject) => {
      queue.push({ kind, payload, opts, resolve: resolve as (v: unknown) => void, reject });
    });
    this.pump();
    return done;
  }

  /** Kills every worker, as a crash would: their tasks fail, the next tasks start fresh ones. */
  async terminateWorkers(): Promise<void> {
    await Promise.all(
      this.slots.map((s) => {
        const w = s.worker;
        if (!w) return undefined;
        this.fail(s, w, new Error('worker terminated'));
        return w.terminate();
      }),
    );
  }

  /**
   * Rejects waiting tasks, lets running ones finish (up to `graceMs`), then stops the workers.
   * Terminating a worker inside a native call (DuckDB's appender, resvg) aborted the whole process
   * with SIGABRT ("terminate called after throwing an instance of 'Napi::Error'", 1 SIGTERM of 6
   * with work in flight), so a worker is stopped between tasks unless it overstays the grace.
   */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    for (const q of this.queues.values()) {
      for (const job of q.splice(0)) job.reject(new Error('worker pool closed'));
    }
    if (this.slots.some((s) => s.job)) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((r) => this.idleWaiters.push(r)),
        new Promise<void>((r) => {
          timer = setTimeout(r, graceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.terminateWorkers();
  }

  /** Starts queued tasks on idle workers, taking the classes in turn. */
  private pump(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.nextJob();
      if (!job) return;
      this.start(slot, job);
    }
  }

  private nextJob(): Job | undefined {
    const kinds = [...this.queues.keys()];
    // The class after the one served last (classes are kept in the order they first came).
    const from = this.lastKind === undefined ? 0 : kinds.indexOf(this.lastKind) + 1;
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(from + i) % kinds.length] as string;
      const job = this.queues.get(kind)?.shift();
      if (job) {
        this.lastKind = kind;
        return job;
      }
    }
    return undefined;
  }

  private start(slot: Slot, job: Job): void {
    const worker = slot.worker ?? this.spawn(slot);
    slot.job = job;
    slot.id = this.nextId++;
    // A starting worker gets the task now (its port keeps it) and the timeout once it is ready.
    if (slot.ready) this.arm(slot, worker, job);
    // Keep the process alive only while a task is out.
    worker.ref();
    const req: PoolRequest = { id: slot.id, kind: job.kind, payload: job.payload };
    worker.postMessage(req, job.opts.transfer ?? []);
  }

  /** The task's timeout: past it, its worker is stopped and the task fails. */
  private arm(slot: Slot, worker: Worker, job: Job): void {
    slot.timer = setTimeout(() => {
      this.fail(slot, worker, new PoolTimeoutError(job.kind, job.opts.timeoutMs));
      void worker.terminate();
    }, job.opts.timeoutMs);
    slot.timer.unref();
  }

  private spawn(slot: Slot): Worker {
    const w = startTsWorker(this.opts.from, this.opts.name);
    this.starts += 1;
    w.unref();
    slot.ready = false;
    slot.boot = setTimeout(() => {
      this.fail(slot, w, new Error(`worker did not start within ${BOOT_TIMEOUT_MS} ms`));
      void w.terminate();
    }, BOOT_TIMEOUT_MS);
    slot.boot.unref();
    w.on('message', (msg: PoolReply | PoolReady) => {
      if ('ready' in msg) this.readied(slot, w);
      else this.settle(slot, w, msg);
    });
    w.on('error', (err) => this.fail(slot, w, err instanceof Error ? err : new Error(String(err))));
    w.on('exit', (code) => this.fail(slot, w, new Error(`worker exited with code ${code}`)));
    slot.worker = w;
    return w;
  }

  private readied(slot: Slot, w: Worker): void {
    if (slot.worker !== w) return;
    slot.ready = true;
    if (slot.boot) clearTimeout(slot.boot);
    slot.boot = null;
    if (slot.job && !slot.timer) this.arm(slot, w, slot.job);
  }

  private settle(slot: Slot, w: Worker, reply: PoolReply): void {
    const job = slot.job;
    if (slot.worker !== w || !job || reply.id !== slot.id) return;
    this.release(slot);
    w.unref();
    this.finished += 1;
    this.finishedBy.set(job.kind, this.finishedOf(job.kind) + 1);
    if (reply.ok) job.resolve(reply.value);
    else job.reject(new PoolTaskError(reply.message, reply.name, reply.kind));
    this.pump();
  }

  /** Forgets a dead (or killed) worker and fails its task; the slot starts a new one when needed. */
  private fail(slot: Slot, w: Worker, err: Error): void {
    if (slot.worker !== w) return;
    slot.worker = null;
    slot.ready = false;
    if (slot.boot) clearTimeout(slot.boot);
    slot.boot = null;
    const job = slot.job;
    this.release(slot);
    job?.reject(err);
    if (!this.closed) this.pump();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    if (this.closed && !this.slots.some((s) => s.job)) {
      for (const r of this.idleWaiters.splice(0)) r();
    }
  }
}
