import { createHash } from 'node:crypto';

/** Quoted strong ETag from content bytes. */
export function etagOf(body: Uint8Array | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * The ETag etagOf gives bytes whose SHA-256 is `sha256Hex`: a file hashed where it was written (a
 * worker thread) is not hashed again on the event loop to be served (a day's CSV is megabytes).
 */
export function etagOfSha256(sha256Hex: string): string {
  return `"${Buffer.from(sha256Hex, 'hex').toString('base64url').slice(0, 27)}"`;
}
