/**
 * Issue target: /api/stat p99 stays under 10 ms while images re-render after data changes.
 * Two runs of the same real service, one quiet and one where both benchmarks get a new sample every
 * second (each write invalidates the views and re-renders both OG images in the render worker);
 * /api/stat is loaded at 32 connections in both, and the render count is read from /metrics.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { load, stop, table } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function start(churn: boolean) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/render-load-server.ts', ...(churn ? ['churn'] : [])],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`server exited with ${c}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
      const m = /^LISTENING (\d+)$/.exec(l);
      if (m) resolve(Number(m[1]));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function renders(base: string): Promise<number> {
  // /metrics answers 503 busy while the event loop is saturated (right after a load run): retry.
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${base}/metrics`);
    const text = await res.text();
    if (res.status === 200)
      return Number(/^citebench_image_renders_total\{kind="og"\} (\d+)/m.exec(text)?.[1] ?? 0);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('/metrics stayed busy');
}

const rows: (string | number)[][] = [['run', 'req/s', 'p50 ms', 'p99 ms', 'OG renders during run', 'errors']];
let churnP99 = 0;
for (const churn of [false, true]) {
  const { child, base } = await start(churn);
  try {
    await (await fetch(`${base}/api/og/network-coverage`)).arrayBuffer();
    await load(`${base}/api/stat/token-trade-coverage`, 32, 1);
    const before = await renders(base);
    const r = await load(`${base}/api/stat/token-trade-coverage`, 32, SECONDS);
    const during = (await renders(base)) - before;
    rows.push([
      churn ? 'writes every 1 s, OG re-rendering' : 'quiet',
      r.rps,
      r.p50,
      r.p99,
      during,
      r.errors + r.non2xx,
    ]);
    if (churn) churnP99 = r.p99;
  } finally {
    await stop(child);
  }
}
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(
      ' ',
    )}; ${SECONDS}s per run, 32 connections\n\n${table(rows)}\n\n/api/stat p99 while rendering: ${churnP99} ms (target < 10 ms): ${churnP99 < 10 ? 'yes' : 'NO'}`,
);
