import { DATASET_LICENSE, type DatasetManifest, type MissingSlots } from '../core/api-schemas.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import type { Provenance } from '../core/provenance.ts';

/**
 * A closed day's manifest (GET /api/dataset/{date}.json): its files with their hashes, the
 * licences and the day's provenance, as frozen with the files. `provenance` is null for days whose
 * index was frozen before provenance was published; `missingSlots` (the index's) only when some
 * slot of the day ran nowhere.
 */
export function datasetManifest(
  day: string,
  rows: number,
  baseUrl: string,
  sha256: { readonly parquet: string; readonly csv: string },
  provenance: Provenance | null,
  missingSlots?: MissingSlots,
  simulated = false,
): DatasetManifest {
  return {
    date: day,
    rows,
    files: {
      parquet: { url: `${baseUrl}/api/dataset/${day}.parquet`, sha256: sha256.parquet },
      csv: { url: `${baseUrl}/api/dataset/${day}.csv`, sha256: sha256.csv },
    },
    license: { ...DATASET_LICENSE },
    provenance,
    ...(missingSlots ? { missingSlots } : {}),
    // Read alone (it is linked from citations), a simulated day's manifest says so.
    ...(simulated ? { simulated: true as const } : {}),
  };
}

/**
 * The Parquet file's key-value metadata: the same provenance and licences as the manifest, each as
 * canonical JSON, so a reader of the file alone can compare them byte for byte.
 */
export function parquetMetadata(provenance: Provenance | null): Record<string, string> {
  return { license: canonicalJson(DATASET_LICENSE), provenance: canonicalJson(provenance) };
}
