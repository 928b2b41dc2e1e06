import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FuzzTarget, startFuzzTarget } from '../helpers/fuzz-server.ts';

let target: FuzzTarget;
beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => {
  await target?.close();
});

const METRIC = fc.constantFrom(
  'networks_supported',
  'network_listed',
  'token_trade_capture_pct',
  'token_trade_count',
  'token_trade_union_count',
  'provider_cycle_5xx',
  'up',
  'process_cpu_seconds_total',
  '',
);
const matcher = fc
  .tuple(
    fc.constantFrom('provider', 'chain', 'token', '__name__', 'x'),
    fc.constantFrom('=', '!=', '=~', '!~'),
    fc.oneof(fc.constantFrom('solana', '.*', '(', 'mobula|codex', ''), fc.string({ maxLength: 10 })),
  )
  .map(([l, op, v]) => `${l}${op}${JSON.stringify(v)}`);
const selector = fc
  .tuple(
    METRIC,
    fc.array(matcher, { maxLength: 3 }),
    fc.option(fc.constantFrom('5m', '30m', '6h', '7d', '400d', '0s', '1y'), { nil: undefined }),
  )
  .map(([m, ms, range]) => `${m}${ms.length ? `{${ms.join(',')}}` : ''}${range ? `[${range}]` : ''}`);

/** PromQL-ish text: well-formed expressions of every supported construct, plus garbage. */
const promql: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    selector,
    fc
      .tuple(
        fc.constantFrom('avg', 'min', 'max', 'sum', 'count', 'last', 'quantile', 'rate', 'nope'),
        selector,
      )
      .map(([f, s]) => (f === 'quantile' ? `quantile_over_time(0.9, ${s})` : `${f}_over_time(${s})`)),
    fc
      .tuple(
        fc.constantFrom('sum', 'avg', 'min', 'max', 'count'),
        fc.constantFrom('', ' by (provider)', ' without (chain)'),
        tie('expr'),
      )
      .map(([a, g, e]) => `${a}${g} (${e})`),
    fc
      .tuple(
        tie('expr'),
        fc.constantFrom('+', '-', '*', '/', '%', '^', 'and'),
        fc.oneof(fc.double().map(String), tie('expr')),
      )
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.string({ maxLength: 60 }),
    fc.constant('x'.repeat(2100)),
  ),
})).expr;

const toolCall = fc.oneof(
  fc.record({
    name: fc.constant('query_prom'),
    arguments: fc.record(
      {
        query: fc.oneof(promql, fc.integer(), fc.constant(null)),
        windowSec: fc.oneof(fc.integer({ min: -10, max: 10_000_000 }), fc.double(), fc.constant('3600')),
        steps: fc.oneof(fc.integer({ min: -5, max: 10_000 }), fc.constant(1.5)),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    name: fc.constant('get_benchmark'),
    arguments: fc.record(
      {
        slug: fc.oneof(
          fc.constantFrom('network-coverage', 'token-trade-coverage', 'nope', ''),
          fc.string({ maxLength: 120 }),
        ),
        chain: fc.oneof(fc.constantFrom('solana', 'stellar', 'mars'), fc.string({ maxLength: 70 })),
        kind: fc.constantFrom('dex-index', 'evm-only', 'x'),
        region: fc.string({ maxLength: 5 }),
        venue: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    name: fc.constant('get_provider'),
    arguments: fc.record(
      {
        slug: fc.oneof(
          fc.constantFrom('mobula', 'codex', 'nobody', 'Bad_Slug', ''),
          fc.string({ maxLength: 120 }),
        ),
        date: fc.oneof(
          fc.constantFrom('2026-11-19', '2026-11-20', '2026-13-01', '0000-01-01', 'x'),
          fc.string({ maxLength: 40 }),
          fc.anything(),
        ),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    name: fc.constant('list_benchmarks'),
    arguments: fc.oneof(
      fc.record({ category: fc.constantFrom('Aggregators', 'Explorers', 'x') }, { requiredKeys: [] }),
      fc.anything(),
    ),
  }),
  fc.record({ name: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), arguments: fc.jsonValue() }),
);

const params = fc.oneof(
  toolCall,
  fc.record({
    uri: fc.oneof(
      fc.constantFrom(
        'citebench://benchmark/network-coverage',
        'citebench://benchmark/x',
        'file:///etc/passwd',
      ),
      fc.string(),
    ),
  }),
  fc.record({
    protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01'),
    capabilities: fc.jsonValue(),
    clientInfo: fc.record({ name: fc.string(), version: fc.string() }),
  }),
  fc.jsonValue(),
);

const message = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.double()),
    method: fc.constantFrom(
      'initialize',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'prompts/list',
      'ping',
      'notifications/initialized',
      'nope',
    ),
    params,
  },
  { requiredKeys: ['method'] },
);

const body = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
);

const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
    accept: fc.constantFrom(
      'application/json, text/event-stream',
      'application/json',
      'text/event-stream',
      '*/*',
      'text/html',
    ),
    'mcp-protocol-version': fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', 'garbage'),
    origin: fc.constantFrom('http://evil.test', 'http://127.0.0.1', 'null'),
  },
  { requiredKeys: [] },
);

describe('MCP fuzzing: every method and tool argument over HTTP', () => {
  it('never answers >= 500, always a JSON-RPC envelope or an empty 202 for notifications', async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(body, headers, async (b, h) => {
        const res = await fetch(`${target.base}/api/mcp/mcp`, { method: 'POST', headers: h, body: b });
        const text = await res.text();
        requests++;
        const where = `${JSON.stringify(h)} ${b.slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        if (text === '') {
          expect([202, 204], where).toContain(res.status);
          return;
        }
        if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) {
          // The SDK answers 406 in text when the client accepts neither JSON nor SSE.
          expect([400, 403, 406, 415], where).toContain(res.status);
          return;
        }
        const env = JSON.parse(text) as {
          jsonrpc?: string;
          result?: unknown;
          error?: { code: number; message: string };
        };
        expect(env.jsonrpc, where).toBe('2.0');
        expect('result' in env || 'error' in env, where).toBe(true);
        if (env.error) {
          expect(Number.isInteger(env.error.code), where).toBe(true);
          expect(typeof env.error.message, where).toBe('string');
        }
      }),
      { numRuns: 1500, seed: 424242 },
    );
    expect(requests).toBe(1500);
    expect(target.unhandled).toEqual([]);
  }, 90_000);

  it('a burst of PromQL range queries beyond the bound is told to retry, not queued without end', async () => {
    const call = (i: number) =>
      fetch(`${target.base}/api/mcp/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'query_prom',
            arguments: {
              query: 'avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))',
              windowSec: 259_200,
              steps: 360,
            },
          },
        }),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { result?: { isError?: boolean; content: Array<{ text: string }> } },
      }));
    const out = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i)));
    expect(out.every((o) => o.status === 200)).toBe(true);
    // Every query is answered, told to retry (query_busy), or stopped at its evaluation deadline
    // (on a loaded machine, e.g. the full suite in parallel): none waits without end.
    const busy = out.filter(
      (o) => o.body.result?.isError && /^query_busy|deadline/.test(o.body.result.content[0]?.text ?? ''),
    );
    const ok = out.filter((o) => o.body.result && !o.body.result.isError);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(busy.length + ok.length).toBe(40);
  });
});
