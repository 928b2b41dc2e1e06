/**
 * A real HTTP server behind the lane gate, in its own process (so that the test's client does not
 * share its event loop): /api/og/* holds the loop LANE_TEST_SPIN_MS (default 4) before answering,
 * anything else answers at once. Without LANE_TEST_GATE=1 there is no gate (the code before the
 * lanes), for comparison. Prints `port <n>` on stdout, then `accepted <n>` as it accepts each
 * connection (the count so far), so a test waits for its connections instead of sleeping.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { laneGate } from '../../src/http/lane-gate.ts';

const spinMs = Number(process.env.LANE_TEST_SPIN_MS ?? 4);
const serve = (req: IncomingMessage, res: ServerResponse) => {
  if (req.url?.startsWith('/api/og/')) {
    const end = performance.now() + spinMs;
    while (performance.now() < end) {
      // Holds the loop, as a render would.
    }
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
};
// Nothing is stored for replay here: every request is routed (through its lane, with the gate).
const listener =
  process.env.LANE_TEST_GATE === '1' ? laneGate(() => false, serve, new Registry()).listener : serve;
const server = createServer(listener);
let accepted = 0;
server.on('connection', () => {
  accepted++;
  process.stdout.write(`accepted ${accepted}\n`);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
