import { etagOf } from '../core/hash.ts';
import type { Served } from './types.ts';

/** Bytes served as they are (frozen snapshots, llm-context): no value kept beside them. */
export interface ServedText {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
}

const encoder = new TextEncoder();

export function serve<T>(value: T): Served<T> {
  const body = encoder.encode(JSON.stringify(value));
  return { value, body, etag: etagOf(body) };
}

/** UTF-8 bytes of a text (Markdown, canonical JSON) with their strong ETag. */
export function serveText(text: string): ServedText {
  const body = encoder.encode(text);
  return { body, etag: etagOf(body) };
}
