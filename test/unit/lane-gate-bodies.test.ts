import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { LANE_BODY_MAX_BYTES, laneGate } from '../../src/http/lane-gate.ts';
import { LANES } from '../../src/http/lane-table.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A lane route (the MCP door's path) behind the gate, echoing the body Hono hands it. */
async function gated(): Promise<{ base: string; port: number; started: () => number }> {
  let started = 0;
  const app = new Hono();
  app.post('/api/mcp/mcp', async (c) => {
    started++;
    const text = await c.req.text();
    if (text.length > LANE_BODY_MAX_BYTES) return c.text('too large', 413);
    return c.text(`echo ${text.length}: ${text.slice(0, 40)}`);
  });
  const gate = laneGate(() => false, getRequestListener(app.fetch), new Registry());
  const server = createServer(gate.listener);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, started: () => started };
}

/** A POST whose body never arrives whole: a Content-Length of 100 and 10 bytes sent. */
function stalledPost(port: number): Promise<void> {
  const s = connect(port, '127.0.0.1');
  sockets.push(s);
  return new Promise((r) =>
    s.write(
      `POST /api/mcp/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
      () => r(),
    ),
  );
}

describe('the lane gate and request bodies', () => {
  it('a body still arriving holds no running job of its lane: stalled POSTs, as many as the lane runs, do not delay the next', async () => {
    const { base, port, started } = await gated();
    for (let i = 0; i < LANES.mcp.running + 1; i++) await stalledPost(port);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    // Before, each stalled POST took a running job until the server's request timeout (56 s), and
    // this request waited behind them: the test's timeout is what fails it then.
    const r = await fetch(`${base}/api/mcp/mcp`, { method: 'POST', body });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(`echo ${body.length}: ${body.slice(0, 40)}`);
    expect(started()).toBe(1);
  }, 10_000);

  it('hands the route the whole body, chunked or not, and one over the cap as over it (413)', async () => {
    const { base } = await gated();
    const big = 'x'.repeat(LANE_BODY_MAX_BYTES - 10);
    const r1 = await fetch(`${base}/api/mcp/mcp`, { method: 'POST', body: big });
    expect(await r1.text()).toBe(`echo ${big.length}: ${big.slice(0, 40)}`);
    // A stream is sent chunked (no Content-Length).
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"a":'));
        c.enqueue(new TextEncoder().encode('1}'));
        c.close();
      },
    });
    const r2 = await fetch(`${base}/api/mcp/mcp`, {
      method: 'POST',
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(await r2.text()).toBe('echo 7: {"a":1}');
    const over = 'y'.repeat(LANE_BODY_MAX_BYTES + 10);
    const r3 = await fetch(`${base}/api/mcp/mcp`, { method: 'POST', body: over });
    expect(r3.status).toBe(413);
  });
});
