import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import { eventLoopMeter, FairLanes } from '../concurrency/fair-lanes.ts';
import { LANES, type LaneName, laneOf } from './lane-table.ts';
import { answer503 } from './starting.ts';

/**
 * How the lanes share the loop while cached reads come: their metered work, plus UNMETERED_JOB_MS
 * per job, is paid at 25% of wall time. Contention ends 50 ms after the last cached read; the
 * credit is capped at 5 ms, so an idle spell does not buy a long run of jobs later.
 */
export const LANE_SHARE = 0.25;

/**
 * What a lane's job costs the loop where it is not metered, charged per job until it is learnt
 * (src/concurrency/unmetered-estimate.ts: over 250 ms windows with no cached read and at least 20
 * jobs, kept within 0.05–5 ms). Once renders, PromQL, series and dataset files ran on the worker
 * pool, a job's metered part shrank and the lanes' credit no longer bound: in bench:burst the
 * burst kept 79–103% of its rate alone and cached reads 37.5–42.8% of theirs (share 0.25 or 0.12
 * alike). In the burst alone the loop spent 1.55 ms per burst request, 0.75 ms of it metered
 * (2-core VM, 2026-11-29); charged 1 ms, cached reads kept 52–57% and each class 35–59%. Learnt,
 * the charge follows the machine: a fixed figure overstates a faster machine's jobs.
 */
export const UNMETERED_JOB_MS = 1;
const LEARN_UNMETERED = { windowMs: 250, minJobs: 20, minMs: 0.05, maxMs: 5 } as const;
const CONTENDED_MS = 50;
const MAX_CREDIT_MS = 5;
/**
 * The loop counts as busy, and the share applies, from 85% utilization over 50 ms windows: below
 * it, cached reads find the loop free within a turn, and the lanes may use the rest.
 */
export const LANES_BUSY_ABOVE = 0.85;
const LOOP_WINDOW_MS = 50;

/** Seconds a refused client is asked to wait: a queue drains in well under that. */
export const LANE_RETRY_AFTER_S = 1;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The 503 of a full lane, in the error shape of every route. */
function refuse(req: IncomingMessage, res: ServerResponse, lane: LaneName): void {
  const message = `Too many ${lane} requests are waiting; retry in ${LANE_RETRY_AFTER_S} second.`;
  answer503(req, res, { error: 'busy', message }, LANE_RETRY_AFTER_S);
}

/**
 * Answers a request from stored bytes when it can (`replay`, the hot path), at once whatever its
 * class: replaying a stored OG PNG or page costs the loop what replaying a Stat costs, so it is a
 * cached read like any other, and waiting in a lane only left the loop idle between its two
 * running jobs (each lasts until its answer is flushed): cached OG images and sparklines ran at
 * 45-84% of a bare server's rate. Every other expensive request waits in its class's lane before
 * anything else is done with it; the rest (`serve`: the router) are served at once.
 */
export function laneGate(
  replay: (req: IncomingMessage, res: ServerResponse) => boolean,
  serve: Listener,
  metrics: Registry,
): { listener: Listener; lanes: FairLanes } {
  const lanes = new FairLanes(LANES, {
    share: LANE_SHARE,
    contendedMs: CONTENDED_MS,
    maxCreditMs: MAX_CREDIT_MS,
    unmeteredMs: UNMETERED_JOB_MS,
    learnUnmeteredMs: LEARN_UNMETERED,
    busyAbove: LANES_BUSY_ABOVE,
    loop: eventLoopMeter(LOOP_WINDOW_MS),
  });
  registerLaneMetrics(lanes, metrics);
  const bodies = { reading: 0 };
  registerBodyGauge(metrics, () => bodies.reading);
  const listener: Listener = (req, res) => {
    if (replay(req, res)) {
      lanes.noteOutside();
      return;
    }
    const lane = laneOf(req.method, req.url);
    if (lane === null) {
      lanes.noteOutside();
      serve(req, res);
      return;
    }
    if (hasBody(req)) {
      // Its body first, outside the lane: a client that sends it slowly (or never, as a lying
      // Content-Length) holds its own socket until the server's request timeout, not one of its
      // lane's running jobs. Two such POSTs held the MCP lane for the 56 s of that timeout.
      bodies.reading++;
      readBody(req, (read) => {
        bodies.reading--;
        if (read === 'aborted') return;
        if (read === 'too_large') {
          lanes.noteOutside();
          serve(req, res);
          return;
        }
        enter(lane, req, res);
      });
      return;
    }
    enter(lane, req, res);
  };
  return { listener, lanes };

  function enter(lane: LaneName, req: IncomingMessage, res: ServerResponse): void {
    const queued = lanes.submit(lane, (done) => {
      res.once('close', done);
      // A client that left while its request waited costs nothing more.
      if (res.closed || req.socket.destroyed) return done();
      // Stored meanwhile by a request of the same URL that ran before it.
      if (replay(req, res)) return done();
      serve(req, res);
    });
    if (!queued) refuse(req, res, lane);
  }
}

/**
 * The largest body a lane route takes (the MCP door's 64 KiB): a longer one is not buffered here,
 * and its route refuses it (413) without the work its lane bounds.
 */
export const LANE_BODY_MAX_BYTES = 64 * 1024;

/** A request that carries a body: GET and HEAD take none (the router refuses one with 413). */
function hasBody(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

type BodyRead = 'read' | 'too_large' | 'aborted';

/**
 * Reads the whole body into `rawBody`, which @hono/node-server hands the route as the request's
 * body (the stream itself is then spent). Past LANE_BODY_MAX_BYTES it stops and keeps what it read:
 * the route sees a body over its cap and answers 413 (closing the connection). A declared length
 * over the cap is not read at all.
 */
function readBody(req: IncomingMessage, then: (read: BodyRead) => void): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > LANE_BODY_MAX_BYTES) {
    then('too_large');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (read: BodyRead) => {
    req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
    if (read !== 'aborted') Object.assign(req, { rawBody: Buffer.concat(chunks, size) });
    then(read);
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > LANE_BODY_MAX_BYTES) {
      req.pause();
      finish('too_large');
    }
  };
  const onEnd = () => finish('read');
  const onAbort = () => finish('aborted');
  req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
}

/** Lane requests whose body is still arriving: a slow or stalled upload shows here, not in a lane. */
function registerBodyGauge(metrics: Registry, reading: () => number): void {
  if (metrics.getSingleMetric('http_lane_reading_body')) return;
  new Gauge({
    name: 'http_lane_reading_body',
    help: 'Requests of an expensive class whose body is still arriving, before their lane',
    registers: [metrics],
    collect() {
      this.set(reading());
    },
  });
}

function registerLaneMetrics(lanes: FairLanes, metrics: Registry): void {
  if (metrics.getSingleMetric('http_lane_waiting')) return;
  const perLane = (read: (s: ReturnType<FairLanes['stats']>[number]) => number) =>
    function (this: Gauge | Counter) {
      this.reset();
      for (const s of lanes.stats()) this.inc({ lane: s.name }, read(s));
    };
  new Gauge({
    name: 'http_lane_waiting',
    help: 'Expensive requests waiting in their class lane (src/concurrency/fair-lanes.ts)',
    labelNames: ['lane'],
    registers: [metrics],
    collect: perLane((s) => s.queued),
  });
  new Counter({
    name: 'http_lane_started_total',
    help: 'Expensive requests started by their class lane',
    labelNames: ['lane'],
    registers: [metrics],
    collect: perLane((s) => s.started),
  });
  new Counter({
    name: 'http_lane_refused_total',
    help: 'Expensive requests refused with 503 and Retry-After because their lane was full',
    labelNames: ['lane'],
    registers: [metrics],
    collect: perLane((s) => s.refused),
  });
  new Counter({
    name: 'http_lane_loop_seconds_total',
    help: "Event-loop time metered at the start of the lanes' jobs (their synchronous part and microtasks)",
    registers: [metrics],
    collect() {
      this.reset();
      this.inc(lanes.meteredMs / 1000);
    },
  });
  new Gauge({
    name: 'http_lane_unmetered_job_seconds',
    help: 'What each lane job is charged besides its metered time, learnt while the lanes run alone',
    registers: [metrics],
    collect() {
      this.set(lanes.unmeteredMs / 1000);
    },
  });
}
