import { z } from 'zod';

/** One optional dimension argument (chain, region, kind, venue), as /api/stat takes it. */
export const dimensionArg = (what: string) =>
  z
    .string()
    .max(64)
    .optional()
    .describe(`${what} Only for benchmarks that declare this dimension; "all" or omitted means every value.`);

/** The four dimension arguments get_benchmark and get_series share. */
export const dimensionArgs = {
  chain: dimensionArg('Narrow to one chain, e.g. "solana".'),
  region: dimensionArg('Narrow to one measurement region.'),
  kind: dimensionArg('Narrow to one provider kind, e.g. "dex-index".'),
  venue: dimensionArg('Narrow to one venue.'),
};
