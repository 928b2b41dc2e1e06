/**
 * Text chunks written into an encoded PNG (PNG 1.2 §11.3.4), so an image shared without its page
 * still says what it shows, where it comes from and under which licence. resvg writes none.
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 of the chunk type and data (PNG's, the same as zlib's). */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function latin1(s: string): Uint8Array {
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

/**
 * tEXt when the text is Latin-1 (what the spec allows there); otherwise iTXt, uncompressed UTF-8
 * with no language tag, so a provider or chain name outside Latin-1 is kept, not mangled.
 */
function textChunk(keyword: string, text: string): Uint8Array {
  if (!/^[\x20-\x7e\xa1-\xff]{1,79}$/.test(keyword)) throw new Error(`bad PNG text keyword: ${keyword}`);
  // Latin-1 without control characters but the line feed (§11.3.4.3).
  if (/^[\n\x20-\x7e\xa0-\xff]*$/.test(text)) return chunk('tEXt', latin1(`${keyword}\0${text}`));
  const utf8 = new TextEncoder().encode(text);
  const head = latin1(`${keyword}\0\0\0\0\0`);
  const data = new Uint8Array(head.length + utf8.length);
  data.set(head);
  data.set(utf8, head.length);
  return chunk('iTXt', data);
}

/** `png` with the text chunks inserted right after IHDR (the first chunk: 8 + 25 bytes in). */
export function withTextChunks(
  png: Uint8Array,
  entries: readonly (readonly [keyword: string, text: string])[],
): Uint8Array<ArrayBuffer> {
  const ihdrEnd = 8 + 12 + 13;
  if (new TextDecoder().decode(png.subarray(12, 16)) !== 'IHDR') throw new Error('not a PNG: no IHDR first');
  const chunks = entries.map(([k, t]) => textChunk(k, t));
  const out = new Uint8Array(png.length + chunks.reduce((n, c) => n + c.length, 0));
  out.set(png.subarray(0, ihdrEnd));
  let at = ihdrEnd;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  out.set(png.subarray(ihdrEnd), at);
  return out;
}
