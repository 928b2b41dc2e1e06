import type { UnrankedRow } from './rows.ts';
import type { Sample } from './samples.ts';

/**
 * A cell's name as a reader sees it: its cell labels then its region, `chain=bsc,kind=logs,region=us-east`
 * (a label the sample lacks is left out). Cached per labels object, as cellIdOf is.
 */
export function cellNameOf(cellLabels: readonly string[]): (labels: Sample['labels']) => string {
  const signature = cellLabels.join('\u0001');
  let cache = cellNames.get(signature);
  if (!cache) {
    cache = new WeakMap();
    cellNames.set(signature, cache);
  }
  const names = cache;
  return (labels) => {
    let name = names.get(labels);
    if (name === undefined) {
      const parts: string[] = [];
      for (const l of [...cellLabels, 'region']) if (labels[l] !== undefined) parts.push(`${l}=${labels[l]}`);
      name = parts.join(',');
      names.set(labels, name);
    }
    return name;
  };
}

const cellNames = new Map<string, WeakMap<Sample['labels'], string>>();

/**
 * A row measured on fewer of the view's comparable cells than the others is flagged with the
 * cells it lacks (partialCoverage): its statistic pools other cells than theirs, so a provider
 * that does not serve a slow chain looks faster unfiltered. Its tests against others (the leader,
 * compare) use only the pairs both were measured on.
 */
export function flagPartialCoverage(cellsOf: ReadonlyMap<UnrankedRow, ReadonlySet<string>>): void {
  const all = new Set<string>();
  for (const cells of cellsOf.values()) for (const c of cells) all.add(c);
  for (const [row, cells] of cellsOf) {
    if (cells.size === all.size) continue;
    const lacking = [...all].filter((c) => !cells.has(c)).sort();
    Object.assign(row, { partialCoverage: lacking });
  }
}
