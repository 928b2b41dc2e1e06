import { Agent, createServer, type OutgoingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The child of bench/http-shapes.ts: a bare node:http server of fixed bytes. With `--varied`, it
 * first sends 20,000 answers of 300 header shapes through node:http's own code (writeHead with
 * objects and arrays, setHeader, write + end, strings and Buffers), as a service answering many
 * routes does, and only then starts the server wrk measures.
 *
 *   node --import tsx bench/http-shapes-server.ts <port> [--varied]
 */
const BODY = Buffer.alloc(3000, 'x');
const HEADERS: OutgoingHttpHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'access-control-allow-origin': '*',
  etag: '"baseline-etag"',
  'cache-control': 'public, max-age=30',
  'content-length': BODY.length,
};

function shapes(): OutgoingHttpHeaders[] {
  return Array.from({ length: 300 }, (_, i) => {
    const h: OutgoingHttpHeaders = {};
    for (let k = 0; k < 3 + (i % 9); k++) h[`x-h${(i * 7 + k) % 40}`] = `v${k}`;
    if (i % 2) h['content-type'] = 'text/html';
    if (i % 3) h['content-length'] = 5;
    return h;
  });
}

/** Answers of many shapes, each through one of three ways of writing a response. */
async function varyNodeHttp(): Promise<void> {
  const all = shapes();
  const server = createServer((req, res) => {
    const i = Number(req.url?.slice(1));
    const h = all[i % all.length] as OutgoingHttpHeaders;
    if (i % 5 === 0) {
      for (const [k, v] of Object.entries(h)) if (v !== undefined) res.setHeader(k, v);
      res.statusCode = 200 + (i % 7);
      res.end(i % 2 ? 'hello' : Buffer.from('hello'));
    } else if (i % 5 === 1) {
      res.writeHead(200, Object.entries(h).flat() as string[]);
      res.write('he');
      res.end('llo');
    } else {
      res.writeHead(200 + (i % 4), h);
      res.end('hello');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const q = request(
        { host: '127.0.0.1', port, path: `/${i}`, agent, headers: { [`x-r${i % 30}`]: 'y' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      q.on('error', reject);
      q.end();
    });
  for (let b = 0; b < 400; b++) await Promise.all(Array.from({ length: 50 }, (_, k) => one(b * 50 + k)));
  agent.destroy();
  await new Promise((r) => server.close(r));
}

const [port, mode] = process.argv.slice(2);
if (mode === '--varied') await varyNodeHttp();
createServer((_req, res) => {
  res.writeHead(200, HEADERS);
  res.end(BODY);
}).listen(Number(port), '127.0.0.1');
