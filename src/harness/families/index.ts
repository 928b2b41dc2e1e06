import { registerFamilies } from '../../core/family.ts';
import type { BenchmarkSpec } from '../../core/spec-schema.ts';
import { chainListing } from './chain-listing/index.ts';
import type { Family } from './family.ts';
import { jsonRpc } from './json-rpc/index.ts';
import { synthetic } from './synthetic/index.ts';
import { syntheticWindow } from './synthetic-window/index.ts';
import { tradeCapture } from './trade-capture/index.ts';

/**
 * Every benchmark family, one folder each. Adding a family is a folder and a line here; adding a
 * benchmark of a family is a YAML file in benchmarks/. Importing this module registers their
 * shapes with the core (spec validation, stored metric names, origin probes).
 */
export const FAMILY_LIST: readonly Family[] = [
  chainListing,
  tradeCapture,
  jsonRpc,
  synthetic,
  syntheticWindow,
];

const byName = new Map(FAMILY_LIST.map((f) => [f.name, f]));
registerFamilies(FAMILY_LIST);

/** The family of a (validated) spec. */
export function familyOf(spec: Pick<BenchmarkSpec, 'family' | 'slug'>): Family {
  const f = byName.get(spec.family);
  if (!f) throw new Error(`benchmark "${spec.slug}" names unknown family "${spec.family}"`);
  return f;
}

/** The family by name, if registered. */
export function familyNamed(name: string): Family | undefined {
  return byName.get(name);
}
