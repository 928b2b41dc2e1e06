import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

// The baseline: a bare node:http server returning the given bytes with the same headers' weight.
const [file, port, contentType] = process.argv.slice(2);
const body = readFileSync(file as string);
createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': contentType ?? 'application/json; charset=utf-8',
    'access-control-allow-origin': '*',
    etag: '"baseline-etag-0000000000000000"',
    'cache-control': 'public, max-age=30, stale-while-revalidate=300',
    'content-length': body.length,
  });
  res.end(body);
}).listen(Number(port), '127.0.0.1');
