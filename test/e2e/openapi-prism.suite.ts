/**
 * Every answer validates against the served OpenAPI document as third-party tools read it, not only
 * as our own Ajv 2020 reads it (test/e2e/golden.test.ts, which imports this suite so that both read
 * one golden demo: data for every benchmark, a frozen day). The demo is read two ways:
 * - through Prism 5 (@stoplight/prism-cli) as a validating proxy: every documented path with valid
 *   and invalid parameters (unknown slug, bad date, bad format, out-of-range sizes, revalidation),
 *   one request at a time, and Prism must report no response violation (counted per request in its
 *   log; named from its `sl-violations` header). A malformed percent-escape is not sent: Prism 5.14
 *   drops the connection on it (URIError in its path matcher) before validating anything;
 * - by openapi-typescript 7: the document compiles to types, and the JSON answers, assigned to the
 *   generated type of their path, status and content type, typecheck under strict settings.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, dayStart } from '../../src/core/dates.ts';
import { GOLDEN_NOW, type GoldenRun, sharedGoldenRun } from '../helpers/golden.ts';
import { freePort, ROOT, type ServiceProcess, spawnService } from '../helpers/service-process.ts';

const PRISM = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
const day = (offset: number) => new Date(dayStart(GOLDEN_NOW) + offset * DAY_MS).toISOString().slice(0, 10);
const TODAY = day(0);
const CLOSED = day(-1);
const OLDER = day(-2);

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
};

interface Probe {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Parameters the document accepts (false: a malformed or unknown value, on purpose). */
  readonly valid: boolean;
  readonly body?: string;
  /** Send the ETag of this path's earlier 200 as If-None-Match (a 304 is documented everywhere). */
  readonly revalidate?: boolean;
}

interface Violation {
  readonly location: string[];
  readonly severity: string;
  readonly message: string;
}

interface Answer {
  readonly probe: Probe;
  readonly template: string | undefined;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /** From the `sl-violations` header: every one, or the first 8 KiB of them (Prism cuts it there). */
  readonly violations: readonly Violation[];
  /** Response violations Prism logged for this request: the exact count. */
  readonly logged: number;
}

const get = (path: string, valid = true, extra: Partial<Probe> = {}): Probe => ({
  method: 'GET',
  path,
  valid,
  ...extra,
});

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const rpc = (message: unknown, valid = true): Probe => ({
  method: 'POST',
  path: '/api/mcp/mcp',
  valid,
  body: JSON.stringify(message),
});

/** The document path a request path falls under (`{x}` matches within one segment). */
function templateOf(paths: readonly string[], path: string): string | undefined {
  const bare = path.split('?')[0] ?? path;
  const matching = paths.filter((t) => new RegExp(`^${t.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
  // `{date}.json` and `{file}` both match a manifest: the one with more literal characters is meant.
  return matching.sort(
    (a, b) => b.replaceAll(/\{[^}]+\}/g, '').length - a.replaceAll(/\{[^}]+\}/g, '').length,
  )[0];
}

interface Facts {
  readonly slugs: string[];
  readonly providers: string[];
  /** Per benchmark: providers of its rankings and one value of each dimension it declares. */
  readonly per: Map<string, { providers: string[]; dims: Array<[string, string]> }>;
}

async function readFacts(base: string): Promise<Facts> {
  const json = async <T>(path: string) => (await (await fetch(`${base}${path}`)).json()) as T;
  const index = await json<{ benchmarks: Array<{ slug: string }> }>('/api/citable');
  const slugs = index.benchmarks.map((b) => b.slug);
  const listing = await json<{ providers: Array<{ slug: string }> }>('/api/providers');
  const per = new Map<string, { providers: string[]; dims: Array<[string, string]> }>();
  for (const slug of slugs) {
    const stat = await json<{
      rankings: Array<{ slug: string }>;
      dimensions?: Record<string, Array<{ value: string }>>;
    }>(`/api/stat/${slug}`);
    const dims = Object.entries(stat.dimensions ?? {}).flatMap(([name, values]) =>
      values[0] ? [[name, values[0].value] as [string, string]] : [],
    );
    per.set(slug, { providers: stat.rankings.map((r) => r.slug), dims });
  }
  return { slugs, providers: listing.providers.map((p) => p.slug), per };
}

/** Valid and invalid requests of every documented path, with the demo's own slugs and days. */
function probes(f: Facts): Probe[] {
  const out: Probe[] = [];
  const add = (...p: Probe[]) => out.push(...p);
  for (const path of ['/api/citable', '/api/llm-context', '/api/freshness', '/api/search/featured']) {
    add(get(path), get(path, true, { revalidate: true }), get(`${path}?x=1`, false));
  }
  add(get('/api/dataset'), get('/api/dataset', true, { revalidate: true }), get('/api/dataset?x=1', false));
  add(get('/api/providers'), get('/api/providers', true, { revalidate: true }));
  for (const d of [CLOSED, OLDER]) add(get(`/api/citable/${d}`));
  add(get(`/api/citable/${CLOSED}`, true, { revalidate: true }));
  for (const d of [TODAY, day(1), '2026-02-30', 'nope', '2020-01-01']) add(get(`/api/citable/${d}`, false));

  for (const slug of f.slugs) {
    const facts = f.per.get(slug) ?? { providers: [], dims: [] };
    add(
      get(`/api/stat/${slug}`),
      get(`/api/stat/${slug}`, true, { revalidate: true }),
      get(`/api/stat/${slug}?date=${CLOSED}`),
      get(`/api/series/${slug}`),
      get(`/api/series/${slug}?range=7d`),
      get(`/api/chart/${slug}`),
      get(`/api/chart/${slug}?range=90d`),
      get(`/api/sparkline/${slug}`),
      get(`/api/sparkline/${slug}?w=300&h=80&theme=dark`),
      get(`/api/sparkline/${slug}?date=${CLOSED}`),
      ...facts.providers.slice(0, 1).map((p) => get(`/api/badge/${slug}/${p}`)),
      get(`/api/badge/${slug}/not-listed`, false),
    );
    for (const [name, value] of facts.dims) {
      add(
        get(`/api/stat/${slug}?${name}=${value}`),
        get(`/api/series/${slug}?range=30d&${name}=${value}`),
        get(`/api/sparkline/${slug}?${name}=${value}`),
      );
    }
    for (const format of ['bib', 'ris', 'apa', 'txt', 'csl']) add(get(`/api/cite/${slug}/${format}`));
    add(get(`/api/cite/${slug}/csl?date=${CLOSED}`), get(`/api/cite/${slug}/bib?date=${CLOSED}`));
    for (const provider of facts.providers) {
      add(get(`/api/audit/${slug}/${provider}`), get(`/api/audit/${slug}/${provider}?window=24h`));
    }
    const [a, b] = facts.providers;
    if (a) add(get(`/api/audit/${slug}/${a}?date=${CLOSED}`), get(`/api/audit/${slug}/${a}?date=bad`, false));
    if (a && b) add(get(`/api/compare/${a}/${b}`), get(`/api/compare/${b}/${a}`));
    if (a) add(get(`/api/compare/${a}/${a}`, false), get(`/api/compare/${a}/nope`, false));
    add(
      get(`/api/stat/${slug}?date=20261119`, false),
      get(`/api/stat/${slug}?date=2026-02-30`, false),
      get(`/api/stat/${slug}?date=2020-01-01`, false),
      get(`/api/stat/${slug}?date=${TODAY}`, false),
      get(`/api/stat/${slug}?kind=nope`, false),
      get(`/api/stat/${slug}?chain=nope`, false),
      get(`/api/stat/${slug}?kind=a&kind=b`, false),
      get(`/api/stat/${slug}?kind=`, false),
      get(`/api/audit/${slug}/nope`, false),
      get(`/api/cite/${slug}/doc`, false),
      get(`/api/cite/${slug}/bib?date=x`, false),
      get(`/api/cite/${slug}/bib?date=2020-01-01`, false),
      get(`/api/series/${slug}?range=1y`, false),
      get(`/api/series/${slug}?range=24h&range=7d`, false),
      get(`/api/series/${slug}?providers=nope`, false),
      get(`/api/series/${slug}?providers=`, false),
      get(`/api/chart/${slug}?range=24h`, false),
      get(`/api/chart/${slug}?chain=dogechain`, false),
      get(`/api/sparkline/${slug}?w=abc`, false),
      get(`/api/sparkline/${slug}?w=39`, false),
      get(`/api/sparkline/${slug}?w=1201`, false),
      get(`/api/sparkline/${slug}?h=0`, false),
      get(`/api/sparkline/${slug}?h=401`, false),
      get(`/api/sparkline/${slug}?theme=pink`, false),
      get(`/api/sparkline/${slug}?date=2020-01-01`, false),
    );
  }
  const first = f.slugs[0] as string;
  add(
    get(`/api/og/${first}`),
    get(`/api/og/${first}?date=${CLOSED}`),
    get(`/api/og/${first}?date=2020-01-01`, false),
    get(`/api/og/${first}?kind=nope`, false),
    get('/api/og/nope', false),
  );
  for (const slug of ['nope', 'Bad_Slug', 'a'.repeat(90)]) {
    add(
      get(`/api/stat/${slug}`, false),
      get(`/api/series/${slug}`, false),
      get(`/api/chart/${slug}`, false),
      get(`/api/sparkline/${slug}`, false),
      get(`/api/cite/${slug}/bib`, false),
      get(`/api/audit/${slug}/mobula`, false),
      get(`/api/compare/${slug}/mobula`, false),
      get(`/api/providers/${slug}`, false),
    );
  }

  add(
    get(`/api/dataset/${CLOSED}.json`),
    get(`/api/dataset/${CLOSED}.json`, true, { revalidate: true }),
    get(`/api/dataset/${OLDER}.json`),
    get(`/api/dataset/${CLOSED}.csv`),
    get(`/api/dataset/${CLOSED}.parquet`),
    get(`/api/dataset/${TODAY}.csv`),
  );
  for (const d of [TODAY, '2026-02-30', '2020-01-01', day(5)]) add(get(`/api/dataset/${d}.json`, false));
  for (const file of ['nope', `${CLOSED}.txt`, '2020-01-01.csv', '2026-13-01.parquet', `${day(5)}.csv`])
    add(get(`/api/dataset/${file}`, false));

  for (const provider of f.providers) add(get(`/api/providers/${provider}`));
  const p = f.providers[0] as string;
  add(
    get(`/api/providers/${p}?date=${CLOSED}`),
    get(`/api/providers/${p}`, true, { revalidate: true }),
    get(`/api/providers/${p}?date=${TODAY}`, false),
    get(`/api/providers/${p}?date=2026-13-01`, false),
    get(`/api/providers/${p}?date=2020-01-01`, false),
  );

  add(
    rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_benchmark', arguments: { slug: first } },
    }),
    rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    rpc({ nope: 1 }, false),
    rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } }, false),
  );
  return out;
}

/** Prism's `sl-violations` header: a JSON list, or "Too many violations! " and its first 8 KiB. */
function readViolations(header: string | null): Violation[] {
  if (!header) return [];
  if (!header.startsWith('Too many violations! ')) return JSON.parse(header) as Violation[];
  return [
    ...header.matchAll(
      /\{"location":\[([^\]]*)\],"severity":"(\w+)","code":"[^"]*","message":"((?:[^"\\]|\\.)*)"/g,
    ),
  ].map((m) => ({
    location: JSON.parse(`[${m[1]}]`) as string[],
    severity: m[2] as string,
    message: m[3] as string,
  }));
}

/**
 * Response violations per request, from Prism's log: it logs each request's violations before it
 * answers, so with one request at a time the log, cut at each "Request received", is one block per
 * request in order. A last request (`end`, undocumented) marks that every block is written.
 */
async function loggedCounts(p: ServiceProcess, base: string, requests: number): Promise<number[]> {
  const end = '/__end_of_probes__';
  await (await fetch(`${base}${end}`)).arrayBuffer();
  await p.waitFor(new RegExp(`get ${end} .*Request received`), 60_000);
  const blocks = p
    .output()
    .split(/^.*\[HTTP SERVER\] .*Request received\s*$/m)
    .slice(1);
  if (blocks.length !== requests + 1)
    throw new Error(`Prism logged ${blocks.length - 1} requests, ${requests} were sent`);
  return blocks.slice(0, requests).map((b) => b.match(/Violation: response/g)?.length ?? 0);
}

let run: GoldenRun;
let prism: ServiceProcess;
let dir: string;
let doc: Doc;
let answers: Answer[] = [];
const started = Date.now();

beforeAll(async () => {
  ({ run } = await sharedGoldenRun());
  doc = (await (await fetch(`${run.url}/api/openapi.json`)).json()) as Doc;
  dir = await mkdtemp(join(tmpdir(), 'citebench-prism-'));
  const docFile = join(dir, 'openapi.json');
  await writeFile(docFile, JSON.stringify(doc));
  const port = await freePort();
  prism = await spawnService(
    {},
    {
      port,
      command: [
        process.execPath,
        PRISM,
        'proxy',
        docFile,
        run.url,
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
      ],
    },
  );
  await prism.waitFor(/Prism is listening on/, 120_000);

  const list = probes(await readFacts(run.url));
  const paths = Object.keys(doc.paths);
  const etags = new Map<string, string>();
  const sent: Array<Omit<Answer, 'logged'>> = [];
  for (const probe of list) {
    const headers: Record<string, string> = probe.method === 'POST' ? { ...MCP_HEADERS } : {};
    const etag = etags.get(probe.path);
    if (probe.revalidate && etag) headers['if-none-match'] = etag;
    const res = await fetch(`http://127.0.0.1:${port}${probe.path}`, {
      method: probe.method,
      headers,
      ...(probe.body ? { body: probe.body } : {}),
    });
    const body = await res.text();
    const tag = res.headers.get('etag');
    if (res.status === 200 && tag && !probe.revalidate) etags.set(probe.path, tag);
    sent.push({
      probe,
      template: templateOf(paths, probe.path),
      status: res.status,
      contentType: (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '',
      body,
      violations: readViolations(res.headers.get('sl-violations')),
    });
  }
  const logged = await loggedCounts(prism, `http://127.0.0.1:${port}`, sent.length);
  answers = sent.map((a, i) => ({ ...a, logged: logged[i] ?? 0 }));
}, 600_000);

afterAll(async () => {
  if (prism && prism.child.exitCode === null) {
    prism.child.kill();
    await prism.exited();
  }
  // The golden demo is closed by test/e2e/golden.test.ts, whose file this suite runs in.
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Documented paths whose requests another template also matches, and Prism resolves to that one:
 * it scores `{date}.json` and `{file}` alike and takes the later path, so a manifest is checked
 * against the Parquet/CSV operation (OpenAPI leaves ambiguous matching to each tool). Such an
 * answer is excused only when Prism shows it chose the other operation (its path parameter's
 * request violation); the entry goes when the document no longer has two templates for one URL.
 */
const MISROUTED: Readonly<Record<string, { readonly to: string; readonly param: string }>> = {
  '/api/dataset/{date}.json': { to: '/api/dataset/{file}', param: 'file' },
};

const misrouted = (a: Answer) => {
  const m = a.template ? MISROUTED[a.template] : undefined;
  return m !== undefined && a.violations.some((v) => v.location.join('.') === `request.path.${m.param}`);
};
const line = (a: Answer, v: Violation) =>
  `${a.probe.method} ${a.probe.path} → ${a.status}: ${v.location.join('.')} ${v.message}`;

describe('Prism 5 as a validating proxy in front of the demo', () => {
  it('still misroutes each MISROUTED path (else its entry is stale)', () => {
    for (const template of Object.keys(MISROUTED)) {
      expect(answers.filter((a) => a.template === template && misrouted(a)).length, template).toBeGreaterThan(
        0,
      );
    }
  });

  it('requests every documented path, with valid and invalid parameters, and gets a 304 for an ETag', () => {
    const reached = new Set(answers.map((a) => a.template));
    expect(Object.keys(doc.paths).filter((p) => !reached.has(p))).toEqual([]);
    const invalid = new Set(answers.filter((a) => !a.probe.valid).map((a) => a.template));
    const withParameters = Object.keys(doc.paths).filter((p) => p.includes('{'));
    expect(withParameters.filter((p) => !invalid.has(p))).toEqual([]);
    expect(answers.filter((a) => a.probe.revalidate && a.status === 304).length).toBeGreaterThan(5);
    // Prism forwarded every request (its own refusals are problem+json) and the service stayed up.
    expect(answers.filter((a) => a.contentType === 'application/problem+json' || a.status >= 500)).toEqual(
      [],
    );
    const byPath = new Map<string, number>();
    for (const a of answers) byPath.set(a.template ?? '-', (byPath.get(a.template ?? '-') ?? 0) + 1);
    console.log(
      `${answers.length} requests through Prism over ${byPath.size} paths in ${Math.round((Date.now() - started) / 1000)} s:\n${[...byPath].map(([p, n]) => `  ${n}\t${p}`).join('\n')}`,
    );
  });

  it('valid requests are valid for Prism too (the document describes the parameters the service accepts)', () => {
    const found = answers
      .filter((a) => a.probe.valid && !misrouted(a))
      .flatMap((a) => a.violations.filter((v) => v.location[0] === 'request').map((v) => line(a, v)));
    expect(found.slice(0, 20), `${found.length} request violations on valid requests`).toEqual([]);
  });

  it('reports no response violation', () => {
    const counted = answers.filter((a) => !misrouted(a));
    const total = counted.reduce((n, a) => n + a.logged, 0);
    const failing = counted.filter((a) => a.logged > 0);
    // The first violation of each failing request (its header's), with the request's count.
    const first = failing.slice(0, 20).map((a) => {
      const v = a.violations.find((x) => x.location[0] === 'response');
      return `${a.logged}× ${v ? line(a, v) : `${a.probe.method} ${a.probe.path} → ${a.status}`}`;
    });
    const excused = answers.filter(misrouted);
    console.log(
      `Prism response violations: ${total} in ${failing.length} of ${answers.length} requests; ` +
        `excused as misrouted (MISROUTED: ${Object.entries(MISROUTED)
          .map(([from, m]) => `${from} read as ${m.to}`)
          .join(', ')}): ${excused.reduce((n, a) => n + a.logged, 0)} in ${excused.length} requests`,
    );
    expect({ total, first }).toEqual({ total: 0, first: [] });
  });
});

/** The TypeScript type of one documented JSON answer, in the generated `paths`. */
const typeOf = (template: string, method: string, status: number, contentType: string) =>
  `paths[${JSON.stringify(template)}][${JSON.stringify(method)}]['responses'][${status}]['content'][${JSON.stringify(contentType)}]`;

const isJsonLike = (t: string) => t === 'application/json' || t.endsWith('+json');

describe('openapi-typescript 7 and the TypeScript compiler', () => {
  it('compiles the document to types that every JSON answer of the demo satisfies (strict)', async () => {
    const types = astToString(await openapiTS(doc as never));
    await writeFile(join(dir, 'api.ts'), types);
    const seen = new Set<string>();
    const samples: string[] = [];
    for (const a of answers) {
      if (!a.template || !isJsonLike(a.contentType) || a.body === '') continue;
      const method = a.probe.method.toLowerCase();
      // Only documented answers are typed; an undocumented status is Prism's to report above.
      if (!doc.paths[a.template]?.[method]?.responses[String(a.status)]?.content?.[a.contentType]) continue;
      const key = `${a.template} ${a.status} ${a.body}`;
      if (seen.has(key)) continue;
      seen.add(key);
      samples.push(
        `// ${a.probe.method} ${a.probe.path} → ${a.status}\nexport const s${samples.length}: ${typeOf(a.template, method, a.status, a.contentType)} = ${a.body};`,
      );
    }
    expect(samples.length).toBeGreaterThan(100);
    const file = join(dir, 'samples.ts');
    await writeFile(file, `import type { paths } from './api.ts';\n\n${samples.join('\n\n')}\n`);
    const program = ts.createProgram([file], {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      types: [],
      skipLibCheck: true,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const where =
        d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return `${d.file?.fileName.replace(dir, '') ?? ''}:${where ? where.line + 1 : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 400)}`;
    });
    console.log(
      `${samples.length} JSON answers typechecked against openapi-typescript's types: ${errors.length} errors`,
    );
    expect(errors.slice(0, 10), `${errors.length} TypeScript errors, the first 10`).toEqual([]);
  }, 240_000);
});
