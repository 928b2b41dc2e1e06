/**
 * What a cached read loses to its process, apart from what it loses to the service's own request
 * path. Three servers answer the same status, headers and bytes of one route:
 * - ours: the service (`serve` over 3 days of the demo dataset), its hot path replaying;
 * - bare in process: a node:http handler inside the service's process, started once it is ready;
 * - bare alone: bench/bare-server.ts, a process of its own.
 * wrk runs against each in turn (ROUNDS rounds, the order rotated each round), all three servers on
 * CPU 0 and wrk on CPU 1 (WRK_PIN=0: unpinned). Prints the median req/s of each and the ratios:
 * bare in process / bare alone is the process's cost, ours / bare in process the request path's.
 *
 *   npx tsx bench/process-state.ts
 *
 * ROUTES (comma-separated paths; default the stat, a sparkline and /api/citable), ROUNDS (5),
 * WRK_DURATION (3s), WRK_CONNECTIONS (32), DEMO_DATA_DIR (a stopped demo's DATA_DIR, served with
 * `serve --simulate`: what a demo that has run a while holds).
 */
import { fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDataset } from '../src/demo/dataset.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
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
  spawnTsx,
  stopChild,
  waitFor200,
  writeResults,
} from './wrk-lib.ts';

const ROUTES = (
  process.env.ROUTES ?? '/api/stat/network-coverage,/api/sparkline/rpc-latency,/api/citable'
).split(',');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = process.env.WRK_DURATION ?? '3s';
const CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 32);
const PINNED = pinCpus(process.env.WRK_PIN !== '0');
/** A demo's DATA_DIR (stopped demo): served with `serve --simulate` instead of the 3-day dataset. */
const DEMO_DATA_DIR = process.env.DEMO_DATA_DIR;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The service with a bare handler beside it, in one process pinned like the others. */
async function startShared(dataDir: string, captureFile: string, servicePort: number, barePort: number) {
  const node = [process.execPath, '--import', 'tsx'];
  // taskset execs node, so the forked pid is the server's and its IPC channel still works.
  const [execPath, ...execArgv] = PINNED ? ['/usr/bin/taskset', '-c', String(SERVER_CPU), ...node] : node;
  const mode = DEMO_DATA_DIR ? '--simulate' : 'measured';
  const child = fork('bench/process-state-server.ts', [captureFile, String(barePort), mode], {
    execPath,
    execArgv,
    env: {
      ...process.env,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SOURCE_URL: 'https://bench.invalid/src/{family}',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await waitFor200(`http://127.0.0.1:${servicePort}/healthz`, 300_000, () => child.exitCode === null);
  return child;
}

await runMain(async () => {
  const m = machine();
  process.stderr.write(`${machineLine(m)}; pinned ${PINNED}\n`);
  const dataDir = DEMO_DATA_DIR ?? (await makeTempDir('citebench-process-state-'));
  if (!DEMO_DATA_DIR) {
    const store = await openDuckDbStore({ path: join(dataDir, 'citebench.duckdb') });
    await store.append(buildDataset({ seed: 1, days: 3, end: Date.now() }));
    await store.close();
  }
  const work = await makeTempDir('citebench-process-state-routes-');
  const results = [];
  for (const [i, path] of ROUTES.entries()) {
    const servicePort = await freePort();
    const inProcessPort = await freePort();
    const alonePort = await freePort();
    const captureFile = join(work, `route-${i}.json`);
    const shared = await startShared(dataDir, captureFile, servicePort, inProcessPort);
    const ours = `http://127.0.0.1:${servicePort}${path}`;
    await capture(ours);
    const got = await capture(ours);
    await writeFile(join(work, `route-${i}.body`), got.body);
    await writeFile(
      captureFile,
      JSON.stringify({ status: got.status, headers: got.headers, bodyFile: `route-${i}.body` }),
    );
    const listening = new Promise((r) => shared.once('message', r));
    shared.send('capture written');
    await listening;
    const alone = spawnTsx('bench/bare-server.ts', ['--capture', captureFile, String(alonePort)], {
      cpu: SERVER_CPU,
    });
    await waitFor200(`http://127.0.0.1:${alonePort}${path}`, 30_000);
    const urls = {
      ours,
      bareInProcess: `http://127.0.0.1:${inProcessPort}${path}`,
      bareAlone: `http://127.0.0.1:${alonePort}${path}`,
    };
    const names = Object.keys(urls) as (keyof typeof urls)[];
    const rps: Record<keyof typeof urls, number[]> = { ours: [], bareInProcess: [], bareAlone: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round) % names.length] as keyof typeof urls;
        rps[name].push(
          Math.round((await runWrk({ url: urls[name], connections: CONNECTIONS, duration: DURATION })).rps),
        );
      }
    }
    await stopChild(alone);
    await stopChild(shared);
    const med = {
      ours: median(rps.ours),
      bareInProcess: median(rps.bareInProcess),
      bareAlone: median(rps.bareAlone),
    };
    const row = {
      path,
      bytes: got.body.length,
      rps,
      median: med,
      processCost: Math.round((med.bareInProcess / med.bareAlone) * 1000) / 1000,
      requestPathCost: Math.round((med.ours / med.bareInProcess) * 1000) / 1000,
      oursOverAlone: Math.round((med.ours / med.bareAlone) * 1000) / 1000,
    };
    results.push(row);
    process.stderr.write(
      `${path} (${row.bytes} B): ours ${med.ours}, bare in process ${med.bareInProcess}, bare alone ${med.bareAlone} req/s; in process / alone ${row.processCost}, ours / in process ${row.requestPathCost}, ours / alone ${row.oursOverAlone}\n`,
    );
  }
  await writeResults('process-state', {
    date: new Date().toISOString(),
    machine: m,
    pinned: PINNED,
    command: 'npx tsx bench/process-state.ts',
    settings: { routes: ROUTES, rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    results,
  });
});
