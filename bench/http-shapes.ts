/**
 * What node:http's shared code costs a fixed answer once it has written answers of many shapes:
 * the same bare server of fixed bytes, fresh and after 20,000 varied answers in its process
 * (bench/http-shapes-server.ts). A service answering many routes is in the second state, and so
 * is a bare handler started inside it (bench/process-state.ts). Both servers on CPU 0, wrk on
 * CPU 1, rounds alternating; prints the medians and varied / fresh.
 *
 *   npx tsx bench/http-shapes.ts        ROUNDS (7), WRK_DURATION (4s), WRK_CONNECTIONS (32)
 */
import {
  freePort,
  machine,
  machineLine,
  pinCpus,
  runMain,
  runWrk,
  SERVER_CPU,
  spawnTsx,
  stopChild,
  waitFor200,
  writeResults,
} from './wrk-lib.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const DURATION = process.env.WRK_DURATION ?? '4s';
const CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 32);
const PINNED = pinCpus(process.env.WRK_PIN !== '0');
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

await runMain(async () => {
  const m = machine();
  process.stderr.write(`${machineLine(m)}; pinned ${PINNED}\n`);
  const ports = { fresh: await freePort(), varied: await freePort() };
  const fresh = spawnTsx('bench/http-shapes-server.ts', [String(ports.fresh)], { cpu: SERVER_CPU });
  const varied = spawnTsx('bench/http-shapes-server.ts', [String(ports.varied), '--varied'], {
    cpu: SERVER_CPU,
  });
  const url = (p: number) => `http://127.0.0.1:${p}/`;
  await waitFor200(url(ports.fresh), 30_000);
  await waitFor200(url(ports.varied), 60_000);
  const names = ['fresh', 'varied'] as const;
  const rps: Record<(typeof names)[number], number[]> = { fresh: [], varied: [] };
  for (const n of names) await runWrk({ url: url(ports[n]), connections: CONNECTIONS, duration: '2s' });
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(k + round) % names.length] as (typeof names)[number];
      rps[n].push(
        Math.round((await runWrk({ url: url(ports[n]), connections: CONNECTIONS, duration: DURATION })).rps),
      );
    }
  }
  await stopChild(fresh);
  await stopChild(varied);
  const med = { fresh: median(rps.fresh), varied: median(rps.varied) };
  const ratio = Math.round((med.varied / med.fresh) * 1000) / 1000;
  process.stderr.write(`fresh ${med.fresh}, varied ${med.varied} req/s; varied / fresh ${ratio}\n`);
  await writeResults('http-shapes', {
    date: new Date().toISOString(),
    machine: m,
    pinned: PINNED,
    command: 'npx tsx bench/http-shapes.ts',
    settings: { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    rps,
    median: med,
    variedOverFresh: ratio,
  });
});
