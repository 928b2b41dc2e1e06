import { z } from 'zod';
import { type BenchmarkSpec, DIMENSION_NAMES, type DimensionName } from '../../core/spec-schema.ts';

const dimensionArg = (description: string) => z.string().max(64).optional().describe(description);

type DimensionArg = ReturnType<typeof dimensionArg>;

/** The dimension arguments of get_benchmark and get_series: one per dimension some spec declares. */
export type DimensionArgs = { readonly [D in DimensionName]?: DimensionArg };

/** The declared dimensions in DIMENSION_NAMES order, each with the benchmarks that declare it. */
export function declaredDimensions(
  specs: readonly BenchmarkSpec[],
): { name: DimensionName; specs: BenchmarkSpec[] }[] {
  return DIMENSION_NAMES.map((name) => ({ name, specs: specs.filter((s) => s.dimensions[name]) })).filter(
    (d) => d.specs.length > 0,
  );
}

/**
 * Only what a spec declares is offered, described by the specs themselves: an argument no
 * benchmark declares (venue, today) is a promise the tool cannot keep, every call with it an error.
 */
export function dimensionArgs(specs: readonly BenchmarkSpec[]): DimensionArgs {
  const out: { [D in DimensionName]?: DimensionArg } = {};
  for (const d of declaredDimensions(specs)) {
    const values = [
      ...new Set(d.specs.flatMap((s) => s.dimensions[d.name]?.values.map((v) => v.value) ?? [])),
    ];
    const fromData = d.specs.some((s) => s.dimensions[d.name]?.fromData);
    const examples = values.length
      ? `, e.g. ${values
          .slice(0, 3)
          .map((v) => `"${v}"`)
          .join(', ')}`
      : fromData
        ? ' (values as measured)'
        : '';
    out[d.name] = dimensionArg(
      `Narrow to one ${d.name}${examples}. Declared by ${d.specs.map((s) => s.slug).join(', ')}; "all" or omitted means every value.`,
    );
  }
  return out;
}

/**
 * Every dimension argument the caller sent, declared or not, for resolveFilters: an undeclared one
 * (the input schemas keep unknown keys) is refused there with the dimensions the benchmark declares,
 * rather than dropped and answered as the unfiltered view.
 */
export function dimensionValues(
  args: Readonly<Record<string, unknown>>,
): Record<DimensionName, string | undefined> {
  const pick = (d: DimensionName): string | undefined => {
    const v = args[d];
    return v === undefined || v === null ? undefined : String(v).slice(0, 64);
  };
  return { chain: pick('chain'), region: pick('region'), kind: pick('kind'), venue: pick('venue') };
}
