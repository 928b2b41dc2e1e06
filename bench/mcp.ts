/**
 * MCP throughput: `tools/call get_benchmark` (raw JSON-RPC POSTs) against GET /api/stat/{slug} for
 * the same benchmark, in one run on one server process, 32 connections, ~5 s each.
 * Target: MCP ≥ 20% of /api/stat req/s.
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { stop, table } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const SLUG = 'token-trade-coverage';

const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/mcp-conformance-server.ts'], {
  env: { ...process.env, PORT: '0', MCP_RATE_LIMIT_PER_MIN: '100000' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<number>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('server did not start within 60 s')), 60_000);
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const m = /^LISTENING (\d+)$/.exec(line);
    if (m) {
      clearTimeout(timer);
      resolve(Number(m[1]));
    }
  });
});
const base = `http://127.0.0.1:${port}`;

const mcpRequest = {
  method: 'POST' as const,
  path: '/api/mcp/mcp',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_benchmark', arguments: { slug: SLUG } },
  }),
};

// The same call with `_meta` set is declined by the fast path, so it measures the SDK transport.
const sdkRequest = {
  ...mcpRequest,
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_benchmark', arguments: { slug: SLUG }, _meta: {} },
  }),
};

// Both paths must answer correctly before we time them.
const check = await fetch(`${base}${mcpRequest.path}`, { ...mcpRequest });
const checkBody = (await check.json()) as {
  result?: { structuredContent?: { slug?: string }; isError?: boolean };
};
if (check.status !== 200 || checkBody.result?.structuredContent?.slug !== SLUG) {
  throw new Error(
    `MCP get_benchmark check failed: ${check.status} ${JSON.stringify(checkBody).slice(0, 200)}`,
  );
}
const statCheck = await fetch(`${base}/api/stat/${SLUG}`);
if (statCheck.status !== 200) throw new Error(`/api/stat check failed: ${statCheck.status}`);
await statCheck.arrayBuffer();

interface Run {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

async function run(opts: autocannon.Options): Promise<Run> {
  const r = await autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.errors + r.timeouts + r.non2xx,
  };
}

try {
  // Short warm-up of both paths (JIT, view caches), then the timed runs.
  await run({ url: `${base}/api/stat/${SLUG}`, duration: 1 });
  await run({ url: base, duration: 1, requests: [mcpRequest] });
  const stat = await run({ url: `${base}/api/stat/${SLUG}`, duration: SECONDS });
  const mcp = await run({ url: base, duration: SECONDS, requests: [mcpRequest] });
  const viaSdk = await run({ url: base, duration: SECONDS, requests: [sdkRequest] });
  const ratio = mcp.rps / stat.rps;
  console.log(
    table([
      ['path', 'req/s', 'p50 ms', 'p99 ms', 'errors+non2xx'],
      [`GET /api/stat/${SLUG}`, stat.rps, stat.p50, stat.p99, String(stat.bad)],
      ['POST /api/mcp/mcp tools/call get_benchmark', mcp.rps, mcp.p50, mcp.p99, String(mcp.bad)],
      ['  same call through the SDK transport', viaSdk.rps, viaSdk.p50, viaSdk.p99, String(viaSdk.bad)],
    ]),
  );
  const errors = stat.bad + mcp.bad + viaSdk.bad;
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${SECONDS}s per run, ${CONNECTIONS} connections`,
  );
  console.log(
    `ratio MCP / stat = ${(ratio * 100).toFixed(1)}% (target ≥ 20%): ${ratio >= 0.2 ? 'yes' : 'NO'}; ` +
      `SDK transport alone: ${((viaSdk.rps / stat.rps) * 100).toFixed(1)}%`,
  );
  // Like bench/api.ts, a missed target is reported, not failed (shared machines are noisy); errors fail.
  process.exitCode = errors === 0 ? 0 : 1;
} finally {
  await stop(child);
}
