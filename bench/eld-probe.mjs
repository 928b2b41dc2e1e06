/**
 * Event-loop delay of the service, measured from outside src/ (bench/expensive-burst.ts preloads it
 * with `node --import`), so the same bench measures any revision the same way.
 *
 * With ELD_PROBE_OUT set, the main thread runs perf_hooks.monitorEventLoopDelay; each SIGUSR2
 * appends one JSON line (percentiles since the previous signal, in ms) to that file and resets the
 * histogram. Node records the whole interval between two ticks of the sampling timer, so an idle
 * loop reads 10.1 ms at the default 10 ms resolution: the delay written is that interval minus the
 * resolution (how late the timer fired), and the raw p99 is written beside it.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const out = process.env.ELD_PROBE_OUT;
const RESOLUTION_MS = 10;

if (out && isMainThread) {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  const late = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  let elu = performance.eventLoopUtilization();
  process.on('SIGUSR2', () => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, elu).utilization;
    elu = now;
    const line = {
      at: Date.now(),
      count: h.count,
      p50: late(h.percentile(50)),
      p90: late(h.percentile(90)),
      p99: late(h.percentile(99)),
      max: late(h.max),
      rawP99: h.percentile(99) / 1e6,
      resolutionMs: RESOLUTION_MS,
      // The main thread's event-loop utilization since the previous signal (workers not counted).
      utilization,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    h.reset();
  });
}
