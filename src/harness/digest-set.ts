/**
 * A set of transaction hashes held as 64-bit digests in open-addressing typed arrays, so a cell of
 * a million trades costs 16 MiB per provider instead of ~130 MiB of strings. Two 32-bit FNV-1a-style
 * hashes with different seeds and a final avalanche give the 64 bits; at a million entries the
 * chance of any collision is about 3e-8, far below the counts' own noise. `capacity` bounds the
 * number of entries: past it `add` refuses, and the caller flags the count as a floor (capped).
 */
export class DigestSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private mask: number;
  private n = 0;
  private readonly keptHashes: string[] = [];

  /**
   * `keep`: how many of the first distinct hashes added are also kept as strings, so the ones the
   * truth does not hold can be looked up on the chain (recall's phantom check); 0 keeps none.
   */
  constructor(
    readonly capacity: number,
    private readonly keep = 0,
  ) {
    const slots = 1024;
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.n;
  }

  get full(): boolean {
    return this.n >= this.capacity;
  }

  /** Adds a hash; false when the set is full and the hash is new (the count is then a floor). */
  add(s: string): boolean {
    digest(s);
    if (this.keptHashes.length >= this.keep) return this.addDigest(dHi, dLo);
    const before = this.n;
    const added = this.addDigest(dHi, dLo);
    if (this.n > before) this.keptHashes.push(s);
    return added;
  }

  /** The first `keep` distinct hashes added, in the order they came. */
  get kept(): readonly string[] {
    return this.keptHashes;
  }

  has(s: string): boolean {
    digest(s);
    return this.hasDigest(dHi, dLo);
  }

  hasDigest(hi: number, lo: number): boolean {
    let i = lo & this.mask;
    for (;;) {
      const h = this.hi[i] as number;
      const l = this.lo[i] as number;
      if (h === 0 && l === 0) return false;
      if (h === hi && l === lo) return true;
      i = (i + 1) & this.mask;
    }
  }

  addDigest(hi: number, lo: number): boolean {
    let i = lo & this.mask;
    for (;;) {
      const h = this.hi[i] as number;
      const l = this.lo[i] as number;
      if (h === 0 && l === 0) break;
      if (h === hi && l === lo) return true;
      i = (i + 1) & this.mask;
    }
    if (this.n >= this.capacity) return false;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.n++;
    // Keep the load factor at or under 1/2 so probes stay short.
    if (this.n * 2 > this.mask + 1) this.grow();
    return true;
  }

  /** Calls fn with every stored digest. */
  forEach(fn: (hi: number, lo: number) => void): void {
    for (let i = 0; i <= this.mask; i++) {
      const h = this.hi[i] as number;
      const l = this.lo[i] as number;
      if (h !== 0 || l !== 0) fn(h, l);
    }
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    const slots = (this.mask + 1) * 2;
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.mask = slots - 1;
    for (let j = 0; j < oldHi.length; j++) {
      const h = oldHi[j] as number;
      const l = oldLo[j] as number;
      if (h === 0 && l === 0) continue;
      let i = l & this.mask;
      while ((this.hi[i] as number) !== 0 || (this.lo[i] as number) !== 0) i = (i + 1) & this.mask;
      this.hi[i] = h;
      this.lo[i] = l;
    }
  }
}

// The digest of the last string hashed (module-level to avoid allocating a pair per call).
let dHi = 0;
let dLo = 0;

function digest(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a ^= s.length;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  a ^= a >>> 16;
  b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d);
  b = Math.imul(b ^ (b >>> 12), 0x297a2d39);
  b ^= b >>> 15;
  dHi = (a ^ Math.imul(b, 0x27d4eb2d)) >>> 0;
  dLo = b >>> 0;
  // (0, 0) marks an empty slot; move the one digest that would collide with it.
  if (dHi === 0 && dLo === 0) dLo = 1;
}

/** |A ∪ B ∪ …| without building the union. */
export function unionSize(sets: readonly DigestSet[]): number {
  let n = 0;
  sets.forEach((s, i) => {
    s.forEach((hi, lo) => {
      for (let j = 0; j < i; j++) if ((sets[j] as DigestSet).hasDigest(hi, lo)) return;
      n++;
    });
  });
  return n;
}
