import type { Filters } from '../../src/core/api-schemas.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import type { Publication } from '../../src/publication/publication.ts';

/**
 * Asks for every live view a request would ask for first, as the prewarm promises to compute them
 * (src/publication/prewarm.ts), one at a time; `each` gets each request's time (ms). Resolves with
 * what was served, for isCurrent.
 */
export async function everyView(
  pub: Publication,
  specs: readonly BenchmarkSpec[],
  pair: readonly [string, string],
  each: (ms: number) => void = () => undefined,
): Promise<object[]> {
  const served: object[] = [];
  const timed = async <T>(fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await fn();
    each(performance.now() - t0);
    return out;
  };
  for (const spec of specs) {
    const sets: (Filters | null)[] = [null];
    for (const dim of Object.keys(spec.dimensions)) {
      for (const v of pub.dimensionValues(spec.slug, dim)) sets.push({ [dim]: v } as Filters);
    }
    let ranked: string[] = [];
    for (const f of sets) {
      const s = await timed(() => pub.stat(spec.slug, f));
      served.push(s);
      if (f === null) ranked = s.value.rankings.map((r) => r.slug);
    }
    for (const range of ['24h', '7d'] as const) {
      served.push(await timed(() => pub.series(spec.slug, null, range, null)));
    }
    for (const p of ranked) {
      const a = await timed(() => pub.audit(spec.slug, p));
      if (a) served.push(a);
    }
  }
  served.push(
    await timed(() => pub.citable()),
    await timed(() => pub.llmContext()),
    await timed(() => pub.featured()),
  );
  const cmp = await timed(() => pub.compare(pair[0], pair[1]));
  if (cmp.ok) served.push(cmp.served);
  return served;
}
