/**
 * Image targets, measured in one run on this machine:
 *  1. OG render time (satori + resvg in the worker, round trip): median < 60 ms over ≥ 30 renders;
 *  2. cached OG and cached SVG responses/s through @hono/node-server vs a bare node:http server
 *     returning the same bytes and headers (ratio ≥ 0.70), autocannon, 32 connections, ~5 s each.
 * Each server runs in its own child process; autocannon runs here.
 *   npx tsx bench/images.ts            (BENCH_SECONDS=5, BENCH_RENDERS=30 to change)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { testConfig } from '../src/config.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { ImageService } from '../src/render/image-service.ts';
import { ogModelFromStat } from '../src/render/og-model.ts';
import { registerImageRoutes } from '../src/render/routes.ts';
import { ServiceWorkers } from '../src/workers/service-workers.ts';
import { fakePublication, sampleStats } from '../test/fixtures/sample-stats.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RENDERS = Math.max(30, Number(process.env.BENCH_RENDERS ?? 30));
const CONNECTIONS = 32;
const ROUNDS = 5;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Child mode: the real image routes on Hono behind @hono/node-server. */
function serveHono(): void {
  const stats = sampleStats();
  const publication = fakePublication(stats);
  const app = new Hono();
  const images = new ImageService({ publication, siteName: 'Citebench', renderer: new ServiceWorkers(1) });
  const deps = {
    config: testConfig(),
    publication,
    store: createMemoryStore(),
    metrics: new Registry(),
    clock: Date.now,
  };
  registerImageRoutes(app, deps, images);
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    process.stdout.write(`${JSON.stringify({ port: info.port })}\n`);
  });
}

// The baseline: node:http answering every request with stored bytes and the same headers.
const BARE_SERVER = `
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
const [file, headersJson] = process.argv.slice(-2);
const body = readFileSync(file);
const headers = { ...JSON.parse(headersJson), 'content-length': body.length };
const srv = createServer((_req, res) => { res.writeHead(200, headers); res.end(body); });
srv.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: srv.address().port }) + '\\n'));
`;

function startChild(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => resolve({ child, port: (JSON.parse(line) as { port: number }).port }));
    child.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Load {
  readonly rps: number;
  readonly bad: number;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

async function rps(url: string, seconds: number): Promise<Load> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  return { rps: r.requests.average, bad: r.errors + r.timeouts + r.non2xx };
}

async function measureRender(): Promise<{ total: number; satori: number; resvg: number }> {
  const client = new ServiceWorkers(1);
  const stats = sampleStats();
  try {
    for (const s of stats) await client.render(ogModelFromStat(s, 'Citebench')); // warm-up (JIT, fonts)
    const total: number[] = [];
    const satori: number[] = [];
    const resvg: number[] = [];
    for (let i = 0; i < RENDERS; i++) {
      const s = stats[i % stats.length]!;
      // Vary the value so no layer could serve a repeat.
      const model = ogModelFromStat({ ...s, value: s.value === null ? null : s.value + i }, 'Citebench');
      const t0 = performance.now();
      const r = await client.render(model);
      total.push(performance.now() - t0);
      satori.push(r.satoriMs);
      resvg.push(r.resvgMs);
    }
    return { total: median(total), satori: median(satori), resvg: median(resvg) };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  process.stderr.write(`bench: ${RENDERS} OG renders …\n`);
  const render = await measureRender();

  const tsx = import.meta.resolve('tsx');
  const hono = await startChild(['--import', tsx, new URL(import.meta.url).pathname, 'serve-hono']);
  const dir = await mkdtemp(join(tmpdir(), 'citebench-img-'));
  const targets = [
    { name: 'OG', path: '/api/og/network-coverage' },
    { name: 'SVG', path: '/api/sparkline/network-coverage?w=240&h=60&theme=dark' },
  ];
  // name, bytes, hono req/s, bare req/s, ratio of means, median per-round ratio
  const rows: Array<[string, number, number, number, number, number]> = [];
  const bare: ChildProcess[] = [];
  try {
    for (const t of targets) {
      const url = `http://127.0.0.1:${hono.port}${t.path}`;
      const res = await fetch(url); // first request renders; the load below is all cache hits
      const body = new Uint8Array(await res.arrayBuffer());
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'date' && k !== 'connection' && k !== 'keep-alive')
          headers[k] = v;
      });
      const file = join(dir, t.name);
      writeFileSync(file, body);
      const b = await startChild([
        '--input-type=module',
        '-e',
        BARE_SERVER,
        '--',
        file,
        JSON.stringify(headers),
      ]);
      bare.push(b.child);
      process.stderr.write(`bench: ${t.name} (${body.length} B) bare vs hono, ${SECONDS} s each …\n`);
      // The machine is shared: alternate short rounds so load drift hits both servers alike.
      const base: Load[] = [];
      const ours: Load[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        base.push(await rps(`http://127.0.0.1:${b.port}/`, Math.max(1, SECONDS / ROUNDS)));
        ours.push(await rps(url, Math.max(1, SECONDS / ROUNDS)));
      }
      const bad = [...base, ...ours].reduce((a, x) => a + x.bad, 0);
      if (bad) process.stderr.write(`  ${bad} non-2xx/errors\n`);
      const baseRps = mean(base.map((x) => x.rps));
      const oursRps = mean(ours.map((x) => x.rps));
      const perRound = median(ours.map((x, i) => x.rps / base[i]!.rps));
      rows.push([t.name, body.length, oursRps, baseRps, oursRps / baseRps, perRound]);
    }
  } finally {
    await Promise.all([stopChild(hono.child), ...bare.map(stopChild)]);
  }

  const fmt = (n: number, d = 0) => n.toFixed(d);
  const lines = [
    '',
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (shared; figures move with it)`,
    `OG render (worker round trip, median of ${RENDERS}): ${fmt(render.total, 1)} ms  [satori ${fmt(render.satori, 1)} ms + resvg ${fmt(render.resvg, 1)} ms]  target < 60 ms: ${render.total < 60 ? 'PASS' : 'FAIL'}`,
    '',
    `Cached responses, ${CONNECTIONS} connections, ${SECONDS} s per server (${ROUNDS} alternating rounds)`,
    'image  bytes    hono req/s  bare req/s  ratio  median round ratio  target ≥ 0.70',
    ...rows.map(
      ([name, bytes, ours, base, ratio, perRound]) =>
        `${name.padEnd(6)} ${String(bytes).padEnd(8)} ${fmt(ours).padStart(10)}  ${fmt(base).padStart(10)}  ${fmt(ratio, 2).padStart(5)}  ${fmt(perRound, 2).padStart(18)}  ${ratio >= 0.7 ? 'PASS' : 'FAIL'}`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

if (process.argv[2] === 'serve-hono') serveHono();
else await main();
