import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of src/, read from the import statements themselves (issue 21, item 5): a
 * store that imports the harness, or an HTTP layer that imports the pages, compiles fine and is
 * only caught here. Type-only imports count: they tie the modules together just the same.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Longest a source file may be; data tables are exempt, each named here. */
const MAX_LINES = 400;
const LONG_DATA_TABLES: readonly string[] = ['src/harness/chains/known-chains.ts'];

/** Every import edge: the importing file and the file it names, both relative to the root (posix). */
type Graph = ReadonlyMap<string, readonly string[]>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** Relative specifiers resolved to files; package imports (`zod`, `node:fs`) are left out. */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    out.push(posix.normalize(posix.join(posix.dirname(file), fileName)));
  }
  return out;
}

function importGraph(files: ReadonlyMap<string, string>): Graph {
  return new Map([...files].map(([file, text]) => [file, importsOf(file, text)]));
}

const under = (dir: string) => (file: string) => file.startsWith(`${dir}/`);

/** Edges from files matching `from` to files matching `to`, as "a -> b". */
function edges(graph: Graph, from: (f: string) => boolean, to: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph)
    if (from(file)) for (const t of targets) if (to(t)) out.push(`${file} -> ${t}`);
  return out;
}

/** Each import cycle among the files matching `within`, once, as "a -> b -> a". */
function cycles(graph: Graph, within: (f: string) => boolean): string[] {
  const out = new Set<string>();
  const done = new Set<string>();
  const walk = (file: string, path: string[]): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      const loop = path.slice(at);
      // Written from its smallest file, so the same cycle found from two places counts once.
      const first = loop.indexOf([...loop].sort()[0] as string);
      const turned = [...loop.slice(first), ...loop.slice(0, first)];
      out.add([...turned, turned[0]].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const t of graph.get(file) ?? []) if (within(t)) walk(t, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) if (within(file)) walk(file, []);
  return [...out].sort();
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const files = new Map(sourceFiles('src').map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const graph = importGraph(files);

describe('the checks themselves', () => {
  // Each rule below passes on a clean tree; these show each check finds the fault it is for.
  const fake = (entries: Record<string, string>) => importGraph(new Map(Object.entries(entries)));

  it('reads import, export-from, type-only and dynamic imports, not comments or packages', () => {
    const g = fake({
      'src/store/a.ts': [
        "import { z } from 'zod';",
        "import type { B } from './b.ts';",
        "export { c } from '../harness/c.ts';",
        "const d = await import('./d/e.ts');",
        "// import { f } from './f.ts';",
      ].join('\n'),
    });
    expect(g.get('src/store/a.ts')).toEqual(['src/store/b.ts', 'src/harness/c.ts', 'src/store/d/e.ts']);
  });

  it('finds a cycle, also through a type-only import, and only inside the folder asked about', () => {
    const g = fake({
      'src/store/prometheus-config.ts': "import type { O } from './prometheus-store.ts';",
      'src/store/prometheus-store.ts': "import { v } from './prometheus-config.ts';",
      'src/store/a.ts': "import { b } from './b.ts';",
      'src/store/b.ts': "import { c } from './c.ts';",
      'src/store/c.ts': "import { a } from './a.ts';",
      'src/http/x.ts': "import { y } from '../pages/y.ts';",
      'src/pages/y.ts': "import { x } from '../http/x.ts';",
    });
    expect(cycles(g, under('src/store'))).toEqual([
      'src/store/a.ts -> src/store/b.ts -> src/store/c.ts -> src/store/a.ts',
      'src/store/prometheus-config.ts -> src/store/prometheus-store.ts -> src/store/prometheus-config.ts',
    ]);
    expect(cycles(fake({ 'src/store/a.ts': "import { b } from './b.ts';" }), under('src/store'))).toEqual([]);
  });

  it('finds an upward import', () => {
    const g = fake({
      'src/store/prometheus-http.ts': "import { Semaphore } from '../harness/semaphore.ts';",
      'src/harness/runtime.ts': "import { Semaphore } from '../concurrency/semaphore.ts';",
    });
    expect(edges(g, under('src/store'), under('src/harness'))).toEqual([
      'src/store/prometheus-http.ts -> src/harness/semaphore.ts',
    ]);
  });

  it('counts lines as wc -l does', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('')).toBe(0);
  });
});

describe('the structure of src/', () => {
  it('finds the source files and their imports', () => {
    // Guards the checks below against passing on an empty or misread tree.
    expect(files.size).toBeGreaterThan(50);
    expect(graph.get('src/store/open-store.ts')).toContain('src/store/duckdb-store.ts');
  });

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !existsSync(join(ROOT, t))).map((t) => `${file} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no import cycle between modules of src/store', () => {
    expect(cycles(graph, under('src/store'))).toEqual([]);
  });

  it('src/store and src/mcp do not import the harness (shared code lives below both)', () => {
    const upward = edges(graph, (f) => under('src/store')(f) || under('src/mcp')(f), under('src/harness'));
    expect(upward).toEqual([]);
  });

  it('src/http does not import src/pages (the HTML pages are injected)', () => {
    expect(edges(graph, under('src/http'), under('src/pages'))).toEqual([]);
  });

  it(`no source file is over ${MAX_LINES} lines, data tables aside`, () => {
    for (const table of LONG_DATA_TABLES) expect(files.has(table), `${table} is listed but gone`).toBe(true);
    const long = [...files]
      .filter(([file, text]) => !LONG_DATA_TABLES.includes(file) && lineCount(text) > MAX_LINES)
      .map(([file, text]) => `${file}: ${lineCount(text)} lines`);
    expect(long).toEqual([]);
  });
});
