/**
 * Cached reads against a bare node:http server, by time since the demo became ready: the demo is
 * young (freezing its backfilled days, building their datasets, prewarming views, measuring its
 * one-minute RPC slots) for its first minutes, then settles. At each point of the curve, for each
 * route: capture the service's answer, serve the same status, headers and bytes from
 * bench/bare-server.ts, then run wrk against the two in turn (ROUNDS rounds, the order swapped each
 * round, each run WRK_DURATION), and report the median ratio (ours / bare req/s). The demo keeps
 * writing throughout (its harness is live): that is the condition measured.
 *
 * Targets: /api/stat, /api/citable and the OG PNG at ≥ 90% of bare; every other cached route ≥ 70%.
 *
 *   npm run bench -- young-demo            (points 10 s, 2 min, 5 min, 10 min after ready)
 *   POINTS=10,600 ROUNDS=5 WRK_DURATION=3s npx tsx bench/young-demo.ts
 *
 * POINTS (seconds after ready, comma-separated), ROUNDS (5), WRK_DURATION (3s), WRK_CONNECTIONS
 * (32), WRK_PIN (1: the service, its children and the bare server on CPU 0, wrk on CPU 1).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  capture,
  freePort,
  machine,
  machineLine,
  makeTempDir,
  pinCpus,
  runMain,
  runWrk,
  SERVER_CPU,
  sleep,
  spawnTracked,
  spawnTsx,
  stopChild,
  utcDay,
  waitFor200,
  writeResults,
} from './wrk-lib.ts';

const POINTS = (process.env.POINTS ?? '10,120,300,600').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = process.env.WRK_DURATION ?? '3s';
const CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 32);
const PINNED = pinCpus(process.env.WRK_PIN !== '0');

interface Route {
  readonly path: string;
  readonly target: number;
}

/** The routes measured: the three a citation reads at 90%, the other cached ones at 70%. */
function routes(day: string): Route[] {
  return [
    { path: '/api/stat/network-coverage', target: 0.9 },
    { path: '/api/citable', target: 0.9 },
    { path: '/api/og/network-coverage', target: 0.9 },
    { path: '/api/stat/rpc-latency', target: 0.7 },
    { path: '/api/stat/token-trade-coverage?chain=solana', target: 0.7 },
    { path: `/api/citable/${day}`, target: 0.7 },
    { path: '/api/cite/network-coverage/bib', target: 0.7 },
    { path: '/api/sparkline/rpc-latency', target: 0.7 },
    { path: '/api/freshness', target: 0.7 },
    { path: '/api/search/featured', target: 0.7 },
    { path: '/benchmarks/rpc-latency', target: 0.7 },
  ];
}

interface Measured {
  readonly path: string;
  readonly target: number;
  readonly ratios: number[];
  readonly median: number;
  readonly oursRps: number[];
  readonly bareRps: number[];
  readonly met: boolean;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function measureRoute(base: string, dir: string, r: Route, i: number): Promise<Measured> {
  const url = `${base}${r.path}`;
  await capture(url);
  const got = await capture(url);
  const json = join(dir, `route-${i}.json`);
  await writeFile(join(dir, `route-${i}.body`), got.body);
  await writeFile(
    json,
    JSON.stringify({ status: got.status, headers: got.headers, bodyFile: `route-${i}.body` }),
  );
  const port = await freePort();
  const bare = spawnTsx('bench/bare-server.ts', ['--capture', json, String(port)], { cpu: SERVER_CPU });
  const bareUrl = `http://127.0.0.1:${port}${r.path}`;
  await waitFor200(bareUrl, 30_000);
  const ratios: number[] = [];
  const oursRps: number[] = [];
  const bareRps: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [url, bareUrl] : [bareUrl, url];
      const rps = new Map<string, number>();
      for (const u of order)
        rps.set(u, (await runWrk({ url: u, connections: CONNECTIONS, duration: DURATION })).rps);
      const ours = rps.get(url) ?? 0;
      const theirs = rps.get(bareUrl) ?? 1;
      oursRps.push(Math.round(ours));
      bareRps.push(Math.round(theirs));
      ratios.push(Math.round((ours / theirs) * 1000) / 1000);
    }
  } finally {
    await stopChild(bare);
  }
  const m = median(ratios);
  return { path: r.path, target: r.target, ratios, median: m, oursRps, bareRps, met: m >= r.target };
}

await runMain(async () => {
  const m = machine();
  process.stderr.write(`${machineLine(m)}; pinned ${PINNED}\n`);
  const dataDir = await makeTempDir('citebench-young-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const demo = spawnTracked(process.execPath, ['--import', 'tsx', 'src/demo/main.ts'], {
    env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    cpu: SERVER_CPU,
    stderr: 'ignore',
  });
  await waitFor200(`${base}/healthz`, 600_000, () => demo.exitCode === null);
  const readyAt = performance.now();
  const readySeconds = (readyAt - t0) / 1000;
  process.stderr.write(`demo ready after ${readySeconds.toFixed(1)} s\n`);
  const work = await makeTempDir('citebench-young-routes-');
  const curve: { secondsAfterReady: number; routes: Measured[] }[] = [];
  for (const point of POINTS) {
    const wait = point * 1000 - (performance.now() - readyAt);
    if (wait > 0) await sleep(wait);
    const at = (performance.now() - readyAt) / 1000;
    process.stderr.write(`— ${at.toFixed(0)} s after ready\n`);
    const measured: Measured[] = [];
    for (const [i, r] of routes(utcDay(-1)).entries()) {
      const x = await measureRoute(base, work, r, i);
      measured.push(x);
      process.stderr.write(
        `  ${x.path.padEnd(48)} ${(x.median * 100).toFixed(0).padStart(4)}% (target ${x.target * 100}%) ${x.met ? 'met' : 'MISSED'}  [${x.ratios.join(' ')}]\n`,
      );
    }
    curve.push({ secondsAfterReady: Math.round(at), routes: measured });
  }
  await stopChild(demo);
  await writeResults('young-demo', {
    date: new Date().toISOString(),
    machine: m,
    pinned: PINNED,
    command: 'npx tsx bench/young-demo.ts',
    settings: { points: POINTS, rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    readySeconds,
    curve,
  });
});
