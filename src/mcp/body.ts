import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 64 * 1024;

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

function declaredTooLarge(value: string | null | undefined, cap: number): boolean {
  if (value === null || value === undefined) return false;
  return !/^\s*\d+\s*$/.test(value) || Number(value) > cap;
}

/**
 * Reads at most `cap` bytes: a declared Content-Length over the cap is refused unread, and a body
 * that turns out longer (chunked, or a lying header) stops being buffered as soon as it passes it.
 * Under Node we read the IncomingMessage directly, which avoids building a web ReadableStream.
 */
export function readCappedBody(req: Request, incoming: IncomingMessage | undefined, cap = MAX_BODY_BYTES) {
  if (declaredTooLarge(req.headers.get('content-length'), cap)) {
    return Promise.resolve<BodyRead>({ ok: false, reason: 'too_large' });
  }
  if (incoming && !incoming.readableDidRead && !incoming.readableEnded) return readIncoming(incoming, cap);
  return readStream(req, cap);
}

function readIncoming(incoming: IncomingMessage, cap: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (r: BodyRead) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > cap) {
        incoming.pause();
        done({ ok: false, reason: 'too_large' });
      } else chunks.push(chunk);
    };
    const onEnd = () => done({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') });
    const onAbort = () => done({ ok: false, reason: 'aborted' });
    incoming.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

async function readStream(req: Request, cap: number): Promise<BodyRead> {
  if (!req.body) return { ok: true, text: '' };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: 'too_large' };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'aborted' };
  }
  return { ok: true, text: Buffer.concat(chunks, size).toString('utf8') };
}
