import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { laneGate } from '../../src/http/lane-gate.ts';
import { LANES } from '../../src/http/lane-table.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

describe('the lane gate and stored answers', () => {
  it("replays a stored answer of an expensive class at once, even while its lane's running jobs hold it", async () => {
    const held: Array<() => void> = [];
    const arrived: string[] = [];
    let heldNow: () => void = () => undefined;
    const nextHeld = () => new Promise<void>((r) => (heldNow = r));
    // The router: every OG render it is asked for waits until the test lets it answer.
    const serve = (req: IncomingMessage, res: ServerResponse) => {
      arrived.push(req.url ?? '');
      held.push(() => res.end('rendered'));
      heldNow();
    };
    // The hot path: only /api/og/stored has stored bytes.
    const replay = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== '/api/og/stored') return false;
      res.end('stored');
      return true;
    };
    const gate = laneGate(replay, serve, new Registry());
    const server = createServer(gate.listener);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = (path: string) => fetch(`${base}${path}`).then((r) => r.text());

    // Fill the og lane's running jobs with renders that do not answer yet.
    const running: Promise<string>[] = [];
    for (let i = 0; i < LANES.og.running; i++) {
      const reached = nextHeld();
      running.push(get(`/api/og/render-${i}`));
      await reached;
    }
    // One more render waits in the lane; the stored answer does not wait behind either.
    const queued = get('/api/og/render-queued');
    expect(await get('/api/og/stored')).toBe('stored');
    expect(arrived).toEqual(Array.from({ length: LANES.og.running }, (_, i) => `/api/og/render-${i}`));
    // Releasing the renders lets the queued one in.
    const third = nextHeld();
    for (const release of held.splice(0)) release();
    expect(await Promise.all(running)).toEqual(Array(LANES.og.running).fill('rendered'));
    await third;
    for (const release of held.splice(0)) release();
    expect(await queued).toBe('rendered');
  });
});
