/** Capture = count / max(count across providers on the cell) × 100; 0 when the max is 0. */
export function capturePct(count: number, max: number): number {
  return max > 0 ? (count / max) * 100 : 0;
}

/** |A ∪ B ∪ …| without building the union (hash sets of 50k entries are not copied). */
export function unionSize(sets: readonly ReadonlySet<string>[]): number {
  let n = 0;
  sets.forEach((s, i) => {
    for (const h of s) {
      let seen = false;
      for (let j = 0; j < i && !seen; j++) seen = (sets[j] as ReadonlySet<string>).has(h);
      if (!seen) n++;
    }
  });
  return n;
}
