/**
 * The child of bench/process-state.ts: the service (`serve` over DATA_DIR) and, once it
 * is ready, a bare node:http handler in the same process serving the bytes captured from one of its
 * routes. Both share the service's heap, threads and compiled code, so their rates apart say what
 * the process costs a replay and what the service's own request path costs.
 *
 *   node --import tsx bench/process-state-server.ts <capture.json> <bare port> [--simulate]
 */
import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import { dirname, resolve } from 'node:path';
import { runCli } from '../src/cli.ts';

interface Capture {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly bodyFile: string;
}

const [file, port, mode] = process.argv.slice(2);
if (!file || !port) throw new Error('usage: process-state-server.ts <capture.json> <bare port>');
void runCli(mode === '--simulate' ? ['serve', '--simulate'] : ['serve']).then((code) => process.exit(code));
// The capture is written by the parent once the service answers; the bare handler starts then.
process.on('message', () => {
  const c = JSON.parse(readFileSync(file, 'utf8')) as Capture;
  const body = readFileSync(resolve(dirname(file), c.bodyFile));
  createServer((_req, res) => {
    res.writeHead(c.status, c.headers);
    res.end(body);
  }).listen(Number(port), '127.0.0.1', () => process.send?.('listening'));
});
