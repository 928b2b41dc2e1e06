import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAMILY_LIST } from '../../src/harness/families/index.ts';
import { PROVIDER_CATALOGUE_FILE } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

/**
 * A benchmark of a known family is a YAML file, a family is a folder: the code that serves every
 * benchmark names none of them. These folders hold no benchmark slug (read from every YAML in
 * benchmarks/) and no metric name (read from every family's declaration). Plain text search, so
 * comments count too: a comment naming a benchmark is where the next special case starts.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['src/core', 'src/publication', 'src/http', 'src/mcp', 'src/harness/service.ts'];

function files(path: string): string[] {
  const abs = join(ROOT, path);
  if (!statSync(abs).isDirectory()) return [path];
  return readdirSync(abs).flatMap((f) => files(join(path, f)));
}

function benchmarkSlugs(): string[] {
  return readdirSync(BENCHMARKS_DIR)
    .filter((f) => /\.ya?ml$/.test(f) && f !== PROVIDER_CATALOGUE_FILE)
    .map((f) => (parse(readFileSync(join(BENCHMARKS_DIR, f), 'utf8')) as { slug: string }).slug);
}

const occurrences = (text: string, name: string) => text.split(name).length - 1;

describe('no benchmark slug and no metric name outside the families and the YAML files', () => {
  const slugs = benchmarkSlugs();
  const metrics = FAMILY_LIST.flatMap((f) => f.metrics.map((m) => m.name));

  it('reads the names it looks for from the YAML files and the families', () => {
    expect(slugs.length).toBeGreaterThanOrEqual(2);
    expect(metrics.length).toBeGreaterThanOrEqual(2);
    // The search finds them where they belong: each metric in its family's folder.
    for (const f of FAMILY_LIST) {
      const text = files(join('src/harness/families', f.name))
        .map((file) => readFileSync(join(ROOT, file), 'utf8'))
        .join('\n');
      for (const m of f.metrics) expect(occurrences(text, m.name), `${f.name} ${m.name}`).toBeGreaterThan(0);
    }
  });

  it(`finds none in ${SCANNED.join(', ')}`, () => {
    const found: string[] = [];
    for (const file of SCANNED.flatMap(files).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const name of [...slugs, ...metrics]) {
        const n = occurrences(text, name);
        if (n === 0) continue;
        found.push(`${file}: "${name}" ×${n}`);
      }
    }
    expect(found).toEqual([]);
  });
});
