/** Small deterministic hashing/PRNG helpers: everything the simulator serves derives from these. */

/** murmur3 finalizer: a good 32-bit mix. */
export function mix32(x: number): number {
  let a = x | 0;
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  return a >>> 0;
}

/** Hash of a tuple of integers. */
export function hashInts(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) h = mix32(h ^ mix32((p | 0) + 0x7f4a7c15 + (h << 6)));
  return h;
}

/** FNV-1a of a string, for turning names into integers. */
export { hash32 as hashString } from '../core/prng.ts';

/** A uniform float in [0, 1) from a 32-bit hash. */
export function unit(h: number): number {
  return h / 4294967296;
}

/** mulberry32: a seeded sequential PRNG for building listings. */
export { prng as rng } from '../core/prng.ts';

export function intBetween(r: () => number, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

const HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const B58 = Array.from('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', (c) => c.charCodeAt(0));
// One reusable code buffer: building ids char by char with += leaves rope garbage behind.
const codes: number[] = [];

export function hexFrom(h: number, chars: number): string {
  codes.length = chars;
  let x = h;
  for (let i = 0; i < chars; i++) {
    if (i % 8 === 0) x = mix32(h + i * 0x632be5ab);
    codes[i] = HEX[x & 15] as number;
    x >>>= 4;
  }
  return String.fromCharCode.apply(null, codes);
}

export function base58From(h: number, chars: number): string {
  codes.length = chars;
  let x = h;
  for (let i = 0; i < chars; i++) {
    // Five base58 digits per 32-bit mix (58^5 < 2^32).
    if (i % 5 === 0) x = mix32(h + i * 0x9e3779b9);
    codes[i] = B58[x % 58] as number;
    x = Math.floor(x / 58);
  }
  return String.fromCharCode.apply(null, codes);
}
