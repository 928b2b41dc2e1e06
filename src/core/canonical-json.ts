/**
 * Canonical JSON: object keys sorted by code point at every level, no whitespace. A frozen day is
 * serialized this way so its bytes depend only on its content, never on the order code built it in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const obj = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) {
    const x = obj[k];
    if (x !== undefined) out[k] = sortKeys(x);
  }
  return out;
}
