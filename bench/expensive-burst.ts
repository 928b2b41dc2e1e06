/**
 * Cached reads under a burst of expensive requests (npm run bench:burst). The demo runs at
 * DEMO_SPEED=600 (the harness writing, so views and OG images keep going stale), then:
 *  1. baseline: wrk, 4 connections, on /api/stat/token-trade-coverage?chain=solana (BURST_SECONDS);
 *  2. the same while a second wrk hammers the expensive routes with 50 connections: PromQL range
 *     queries over 7 days at 360 steps, OG images, SVG sparklines at random sizes, day snapshots of
 *     random past days, /metrics.
 * Prints /api/stat p50/p99 and req/s in both phases and what the burst got (statuses, MCP
 * `query_busy` answers from the PromQL bound). Both wrk processes share the two cores with the
 * service, so the figures include that contention.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { rssMb, spawnNode, stop, waitFor200 } from './lib.ts';

const run = promisify(execFile);
const SECONDS = Number(process.env.BURST_SECONDS ?? 20);
const CLIENTS = Number(process.env.BURST_CLIENTS ?? 50);
const PORT = 18_600 + Math.floor(Math.random() * 90);
const BASE = `http://127.0.0.1:${PORT}`;

process.stdout.write(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version}, linux ${release()}\n`,
);
const { stdout: wrkVersion } = await run('wrk', ['-v']).catch((e: { stdout?: string }) => ({
  stdout: e.stdout ?? '',
}));
process.stdout.write(`${wrkVersion.split('\n')[0] ?? 'wrk'}\n`);

const dir = await mkdtemp(join(tmpdir(), 'citebench-burst-'));
const days = [1, 2].map((n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10));
const lua = `
local promql = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_prom","arguments":{"query":"avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))","windowSec":604800,"steps":360}}}'
local days = {"${days.join('","')}"}
local statuses = {}
local busy = 0
request = function()
  local r = math.random(10)
  if r <= 4 then
    return wrk.format("POST", "/api/mcp/mcp", {["content-type"] = "application/json", ["accept"] = "application/json, text/event-stream"}, promql)
  elseif r <= 6 then
    local slugs = {"network-coverage", "token-trade-coverage"}
    return wrk.format("GET", "/api/og/" .. slugs[math.random(2)])
  elseif r <= 8 then
    return wrk.format("GET", "/api/sparkline/token-trade-coverage?w=" .. math.random(100, 1200) .. "&h=" .. math.random(20, 400))
  elseif r == 9 then
    return wrk.format("GET", "/api/citable/" .. days[math.random(#days)])
  else
    return wrk.format("GET", "/metrics")
  end
end
response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if body and string.find(body, "query_busy", 1, true) then busy = busy + 1 end
end
`;
const script = join(dir, 'burst.lua');
// wrk's done() cannot see per-thread state, so the (single) thread prints its tallies as it goes.
await writeFile(
  script,
  `${lua}
local function dump()
  local parts = {}
  for k, v in pairs(statuses) do table.insert(parts, k .. "=" .. v) end
  io.write("burst statuses: ", table.concat(parts, " "), "; MCP query_busy answers: ", busy, "\\n")
end
local orig_response = response
local count = 0
response = function(status, headers, body)
  orig_response(status, headers, body)
  count = count + 1
  if count % 2000 == 0 then dump() end
end
`,
);

const child = spawnNode(['--import', 'tsx', 'src/demo/main.ts'], {
  PORT: String(PORT),
  BASE_URL: BASE,
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  DEMO_SPEED: '600',
  MCP_RATE_LIMIT_PER_MIN: '100000',
});
process.stderr.write('waiting for the demo backfill …\n');
await waitFor200(`${BASE}/healthz`, 180_000);
await new Promise((r) => setTimeout(r, 3000));

const STAT = `${BASE}/api/stat/token-trade-coverage?chain=solana`;
function parseWrk(out: string): { rps: number; p50: number; p99: number; non2xx: number } {
  const ms = (s: string | undefined) => {
    const m = /([\d.]+)(us|ms|s)/.exec(s ?? '');
    if (!m) return Number.NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    p50: ms(/\s50%\s+(\S+)/.exec(out)?.[1]),
    p99: ms(/\s99%\s+(\S+)/.exec(out)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}
const measure = async () =>
  parseWrk(
    (await run('wrk', ['-t1', '-c4', `-d${SECONDS}s`, '--latency', STAT], { maxBuffer: 1 << 20 })).stdout,
  );

const baseline = await measure();
const burst = run('wrk', ['-t1', `-c${CLIENTS}`, `-d${SECONDS + 4}s`, '--latency', '-s', script, BASE], {
  maxBuffer: 1 << 24,
});
await new Promise((r) => setTimeout(r, 2000));
const under = await measure();
const burstOut = (await burst).stdout;
const rss = rssMb(child.pid as number);
await stop(child);

const lastTally =
  burstOut
    .split('\n')
    .filter((l) => l.startsWith('burst statuses'))
    .at(-1) ?? '';
process.stdout.write(`\n/api/stat (4 connections, ${SECONDS} s each):\n`);
process.stdout.write(
  `  alone:            ${baseline.rps.toFixed(0)} req/s, p50 ${baseline.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} ms, non-2xx ${baseline.non2xx}\n`,
);
process.stdout.write(
  `  under the burst:  ${under.rps.toFixed(0)} req/s, p50 ${under.p50.toFixed(2)} ms, p99 ${under.p99.toFixed(2)} ms, non-2xx ${under.non2xx}\n`,
);
const burstStats = parseWrk(burstOut);
process.stdout.write(
  `burst (${CLIENTS} connections on PromQL/OG/SVG/snapshots/metrics): ${burstStats.rps.toFixed(0)} req/s, p99 ${burstStats.p99.toFixed(0)} ms\n  ${lastTally} (sampled)\n`,
);
process.stdout.write(`service RSS at the end: ${rss.toFixed(0)} MB\n`);
process.exit(under.non2xx === 0 && under.p99 < 50 ? 0 : 1);
