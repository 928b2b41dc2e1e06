import type { ProvenanceJson } from './api-schemas-index.ts';
import type { Sample } from './samples.ts';

/**
 * Who computed a view and who measured its samples (issue 25, rule 4), after Prometheus'
 * `*_build_info` convention: the harness writes `harness_build_info{benchmark, version, revision,
 * region} 1` beside every cycle marker, and a view counts the builds found in its window.
 */

/** A build of the service or of the harness: `version` from package.json, `revision` a git commit when known. */
export interface BuildInfo {
  readonly version: string;
  readonly revision?: string;
}

/** `{version, revision, specs: {slug: sha256}, measuredBy}`, as published (schema in api-schemas-index.ts). */
export type Provenance = ProvenanceJson;

/** One harness build seen in a window, with its cycles (one per benchmark a cycle served). */
export type MeasuredBy = Provenance['measuredBy'][number];

/** The labels of a harness_build_info sample (region comes with the harness's own labels). */
export const BUILD_INFO_LABELS = ['benchmark', 'version', 'revision', 'region'] as const;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The distinct builds among harness_build_info samples with their cycle counts, sorted by
 * (version, revision, region); an absent label sorts as "" and stays absent in the output.
 */
export function measuredBy(samples: readonly Sample[]): MeasuredBy[] {
  const builds = new Map<string, { version: string; revision: string; region: string; cycles: number }>();
  for (const s of samples) {
    const version = s.labels.version ?? '';
    const revision = s.labels.revision ?? '';
    const region = s.labels.region ?? '';
    const key = JSON.stringify([version, revision, region]);
    const b = builds.get(key);
    if (b) b.cycles++;
    else builds.set(key, { version, revision, region, cycles: 1 });
  }
  return [...builds.values()]
    .sort((a, b) => cmp(a.version, b.version) || cmp(a.revision, b.revision) || cmp(a.region, b.region))
    .map((b) => ({
      version: b.version,
      ...(b.revision ? { revision: b.revision } : {}),
      ...(b.region ? { region: b.region } : {}),
      cycles: b.cycles,
    }));
}

/**
 * The provenance of a view computed by `build` from specs hashed as `specs` (specHashes, computed
 * once per process: the specs never change while it runs) over a window's build_info samples.
 */
export function buildProvenance(
  build: BuildInfo,
  specs: Readonly<Record<string, string>>,
  buildInfoSamples: readonly Sample[],
): Provenance {
  return {
    version: build.version,
    ...(build.revision ? { revision: build.revision } : {}),
    specs: { ...specs },
    measuredBy: measuredBy(buildInfoSamples),
  };
}
