import { etagOf } from '../core/hash.ts';

const encoder = new TextEncoder();

/** Encoded texts with their ETags, built once per key (citations, pages); bounded, cleared when full. */
export class TextCache {
  private readonly map = new Map<string, { body: Uint8Array<ArrayBuffer>; etag: string }>();
  /** Texts built (misses) since start: /metrics, and tests of what a prewarm left to build. */
  builds = 0;

  constructor(private readonly maxEntries: number) {}

  peek(key: string): { body: Uint8Array<ArrayBuffer>; etag: string } | undefined {
    return this.map.get(key);
  }

  get(key: string, build: () => string): { body: Uint8Array<ArrayBuffer>; etag: string } {
    let hit = this.map.get(key);
    if (!hit) {
      this.builds++;
      const body = encoder.encode(build());
      hit = { body, etag: etagOf(body) };
      if (this.map.size >= this.maxEntries) this.map.clear();
      this.map.set(key, hit);
    }
    return hit;
  }
}
