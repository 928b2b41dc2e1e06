import { createHash } from 'node:crypto';

/** Quoted strong ETag from content bytes. */
export function etagOf(body: Uint8Array | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}
