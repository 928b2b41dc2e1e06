import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { REFERENCE_STALE_MS } from '../../src/harness/families/json-rpc/reference.ts';
import { referenceVar, rpcUrlVar } from '../../src/harness/rpc-config.ts';
import { startHarness } from '../../src/harness/service.ts';
import type { Clock } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { listenLoopback } from '../../src/sim/listen.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { openTestStore } from '../helpers/memory-store.ts';

const SLOT = Date.UTC(2026, 5, 1, 12, 0);
const HEAD = 5_000;

/**
 * A JSON-RPC node of one Ethereum chain whose newest block is HEAD, stamped `headTime()`: every
 * provider and the reference read it, so all answers agree and only the head's age differs.
 */
let headTime = SLOT;
let server: Server;
let url = '';
const sockets = new Set<Socket>();

function answer(method: string, params: unknown[]): unknown {
  const block = (n: number) => ({
    number: `0x${n.toString(16)}`,
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    timestamp: `0x${Math.floor((headTime - (HEAD - n) * 12_000) / 1000).toString(16)}`,
  });
  switch (method) {
    case 'eth_chainId':
      return '0x1';
    case 'eth_blockNumber':
      return `0x${HEAD.toString(16)}`;
    case 'eth_getBlockByNumber':
      return block(params[0] === 'latest' ? HEAD : Number.parseInt(String(params[0]), 16));
    case 'eth_getBalance':
      return '0x10';
    case 'eth_call':
      return `0x${'0'.repeat(64)}`;
    case 'eth_getLogs':
      return [];
    default:
      return null;
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string; params?: unknown[] };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: answer(msg.method, msg.params ?? []) }));
    });
  });
  url = await listenLoopback(server, sockets);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

/** A clock past every offset of the slot (all under 30 s), inside its minute: each series fires at once. */
const clock: Clock = {
  now: () => SLOT + 30_500,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

async function slotWithHeadAge(ageMs: number): Promise<{ samples: Sample[]; skipped: string }> {
  headTime = SLOT - ageMs;
  const specs: BenchmarkSpec[] = (await loadSpecs(BENCHMARKS_DIR))
    .filter((s) => s.family === 'json-rpc')
    .map((s) => ({ ...s, providers: s.providers.slice(0, 2).map((p) => ({ ...p, chains: ['ethereum'] })) }));
  const env: Record<string, string> = { [referenceVar('ethereum')]: url, HARNESS_REGION: 'us-east' };
  for (const s of specs) for (const p of s.providers) env[rpcUrlVar(p.slug, 'ethereum')] = url;
  const store = await openTestStore();
  const registry = new Registry();
  const harness = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(env),
    clock,
    autoStart: false,
    log: () => {},
  });
  await harness.runCycle('rpc-latency', SLOT);
  await harness.stop();
  const samples: Sample[] = [];
  for (const m of Object.values(M))
    samples.push(...(await store.select({ metric: m, after: SLOT - 1, until: SLOT })));
  return { samples, skipped: await registry.getSingleMetricAsString('harness_probes_skipped_total') };
}

describe('a stalled reference head scores nothing', () => {
  it('a fresh reference head scores every probe; one older than REFERENCE_STALE_MS at the slot start skips the chain', async () => {
    const fresh = await slotWithHeadAge(12_000);
    expect(fresh.samples.filter((s) => s.metric === M.probeOk && s.v === 1)).toHaveLength(10);
    expect(fresh.samples.filter((s) => s.metric === M.headLagMs).map((s) => s.v)).toEqual([0, 0]);
    // Every provider would read 0 ms behind a head our node stopped at: not a measurement.
    const stale = await slotWithHeadAge(REFERENCE_STALE_MS + 12_000);
    expect(stale.samples.filter((s) => s.metric !== M.slotDown)).toEqual([]);
    expect(stale.skipped).toMatch(/reason="stale_reference"} 10/);
  });
});
