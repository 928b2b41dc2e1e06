/** Integers we inline into SQL are our own, but check them anyway. */
export function int(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return String(Math.trunc(n));
}

export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The ids of the given series as a SQL list: `1,2,3`. */
export function idList(series: readonly { readonly id: number }[]): string {
  return series.map((s) => int(s.id)).join(',');
}
