import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import { dirname, resolve } from 'node:path';

/**
 * The baseline: a bare node:http server returning fixed bytes, whatever the path.
 *
 *   bare-server.ts <body file> <port> [content type]
 *     the body with a fixed header set of the same weight as the service's (status 200);
 *   bare-server.ts --capture <capture.json> <port>
 *     exactly what the service answered: `{ "status": 200, "headers": { … }, "bodyFile": "…" }`
 *     (bodyFile absolute or relative to the JSON), sent with writeHead(status, headers) + end(body).
 */
interface Capture {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly bodyFile: string;
}

const args = process.argv.slice(2);
let status = 200;
let headers: OutgoingHttpHeaders;
let body: Buffer;
let port: number;
if (args[0] === '--capture') {
  const file = args[1] as string;
  const c = JSON.parse(readFileSync(file, 'utf8')) as Capture;
  status = c.status;
  headers = c.headers;
  body = readFileSync(resolve(dirname(file), c.bodyFile));
  port = Number(args[2]);
} else {
  const [file, p, contentType] = args;
  body = readFileSync(file as string);
  port = Number(p);
  headers = {
    'content-type': contentType ?? 'application/json; charset=utf-8',
    'access-control-allow-origin': '*',
    etag: '"baseline-etag-0000000000000000"',
    'cache-control': 'public, max-age=30, stale-while-revalidate=300',
    'content-length': body.length,
  };
}
createServer((_req, res) => {
  res.writeHead(status, headers);
  res.end(body);
}).listen(port, '127.0.0.1');
