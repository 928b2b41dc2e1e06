/** Samples follow the Prometheus data model: metric name, labels, timestamp (ms), value. */
export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  readonly metric: string;
  readonly labels: Labels;
  /** Epoch milliseconds. */
  readonly t: number;
  readonly v: number;
}

export type MatchOp = '=' | '!=' | '=~' | '!~';

export interface Matcher {
  readonly name: string;
  readonly op: MatchOp;
  readonly value: string;
}

/** Canonical, order-independent key of a label set (sorted by name). */
export function labelsKey(labels: Labels): string {
  const names = Object.keys(labels);
  // Already in order (most label sets are written so): the same string without a sorted copy,
  // half the cost, which counts in an append of 100k samples.
  let sorted = true;
  for (let i = 1; i < names.length && sorted; i++) sorted = (names[i - 1] as string) < (names[i] as string);
  if (sorted) return JSON.stringify(labels);
  names.sort();
  const out: Record<string, string> = {};
  for (const n of names) out[n] = labels[n] as string;
  return JSON.stringify(out);
}

const regexCache = new Map<string, RegExp>();
function anchored(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    // Prometheus regex matchers are fully anchored.
    re = new RegExp(`^(?:${pattern})$`);
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** True when the label set satisfies every matcher (a missing label reads as ""). */
export function matchesAll(labels: Labels, matchers: readonly Matcher[]): boolean {
  for (const m of matchers) {
    const actual = labels[m.name] ?? '';
    switch (m.op) {
      case '=':
        if (actual !== m.value) return false;
        break;
      case '!=':
        if (actual === m.value) return false;
        break;
      case '=~':
        if (!anchored(m.value).test(actual)) return false;
        break;
      case '!~':
        if (anchored(m.value).test(actual)) return false;
        break;
    }
  }
  return true;
}

/** A literal for a `=~` matcher: regex metacharacters escaped (matchers are anchored RE2/JS regexes). */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `name=~"a|b|…"` matching exactly the given values. */
export function oneOf(name: string, values: readonly string[]): Matcher {
  return { name, op: '=~', value: values.map(escapeRegex).join('|') };
}

export function eq(name: string, value: string): Matcher {
  return { name, op: '=', value };
}

/** Samples grouped by their `provider` label (samples without one are skipped), in input order. */
export function byProvider(samples: readonly Sample[]): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const s of samples) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    let arr = out.get(p);
    if (!arr) {
      arr = [];
      out.set(p, arr);
    }
    arr.push(s);
  }
  return out;
}
