import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../log.ts';
import { EngineUnreachable } from './prometheus-http.ts';
import type { PrometheusStore } from './prometheus-store.ts';

/**
 * How often the writer asks the engine whether it is up (one `vector(1)` query, no retry): also
 * while idle between cycles, so `store_engine_up` shows an outage before the next write finds it.
 */
export const ENGINE_POLL_MS = 2_000;

export interface EngineHealth {
  /** Where the store's `onError` goes: an unreachable engine is a state, anything else a WARN. */
  onError(e: Error): void;
  stop(): void;
}

/**
 * The writer's view of its engine: `store_engine_up` (0/1) and `store_buffered_samples` on its
 * /metrics, one WARN when the engine goes and one INFO when it returns, never an ERROR: while it
 * is away cycles are buffered (src/store/write-buffer.ts) and delivered when it answers again.
 */
export function watchEngine(o: {
  readonly engine: PrometheusStore;
  readonly registry: Registry;
  readonly log: Logger;
  readonly intervalMs?: number;
}): EngineHealth {
  const upGauge = new Gauge({
    name: 'store_engine_up',
    help: 'Whether the sample store engine answered its last probe (1) or not (0)',
    registers: [o.registry],
  });
  new Gauge({
    name: 'store_buffered_samples',
    help: 'Samples waiting in memory for the engine (delivered when it answers again)',
    registers: [o.registry],
    collect() {
      this.set(o.engine.bufferedSamples);
    },
  });
  // Unknown until the first probe: neither a WARN nor an INFO for the state at start.
  let up: boolean | null = null;
  const set = (now: boolean, why?: string) => {
    upGauge.set(now ? 1 : 0);
    if (now === up) return;
    const was = up;
    up = now;
    if (!now) {
      o.log.warn('sample store engine down: cycles are buffered until it answers', {
        buffered: o.engine.bufferedSamples,
        ...(why ? { error: why } : {}),
      });
    } else if (was === false) {
      o.log.info('sample store engine back: delivering buffered samples', {
        buffered: o.engine.bufferedSamples,
      });
    }
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const probe = async () => {
    const now = await o.engine.up();
    if (stopped) return;
    set(now);
    // Samples buffered while it was away go now rather than at the buffer's next back-off step.
    if (now && o.engine.bufferedSamples > 0) void o.engine.flush();
    timer = setTimeout(() => void probe(), o.intervalMs ?? ENGINE_POLL_MS);
    timer.unref();
  };
  void probe();
  return {
    onError(e) {
      if (e instanceof EngineUnreachable) set(false, e.message);
      else o.log.warn('sample store engine error', { error: e.message });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
