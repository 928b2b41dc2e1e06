import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GOLDEN_FILE,
  GOLDEN_OPENAPI_FILE,
  type GoldenCorpus,
  type GoldenEntry,
  type GoldenRun,
  goldenRequests,
  type SharedGolden,
  sharedGoldenRun,
} from '../helpers/golden.ts';
import { isJsonLike, openApiValidator } from '../helpers/openapi.ts';
// Prism's checks read the same golden demo (one demo per file: it costs half a minute of a core).
import './openapi-prism.suite.ts';

/**
 * One demo run at a fixed seed and clock, checked two ways (one run, since building it is most of
 * the cost). Byte identity: every GET answer of the demo at a fixed seed and clock equals the committed corpus
 * (test/fixtures/golden.json, written by `npm run golden`), Date aside. The OpenAPI document is
 * compared parsed; its only allowed differences are listed in OPENAPI_CHANGES. Schema: every JSON
 * answer (application/json and +json) validates against the document the service serves, the
 * schema of its path, status and content type.
 */

/** JSON pointers where the served document may differ from the golden one, each a documented fix. */
// Empty since the corpus was regenerated for issue 26 (bfd837a): its missingSlots and 503 starting
// declarations are in the golden document now, so listing them here would be stale.
const OPENAPI_CHANGES: readonly string[] = [];

/** Every JSON pointer at which a and b differ (a leaf that changed, or a key only one side has). */
function jsonDiff(a: unknown, b: unknown, at = ''): string[] {
  if (a === b) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return [at || '/'];
  if (Array.isArray(a) !== Array.isArray(b)) return [at || '/'];
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  const out: string[] = [];
  for (const k of keys) {
    const p = `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!(k in ra) || !(k in rb)) out.push(p);
    else out.push(...jsonDiff(ra[k], rb[k], p));
  }
  return out;
}

/** The document path a request path falls under (`{x}` matches one segment). */
function templateOf(paths: readonly string[], path: string): string | undefined {
  const bare = path.split('?')[0] ?? path;
  return paths.find((t) => new RegExp(`^${t.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

let run: GoldenRun;
let captured: SharedGolden['captured'];
let golden: GoldenCorpus;
beforeAll(async () => {
  golden = JSON.parse(await readFile(GOLDEN_FILE, 'utf8')) as GoldenCorpus;
  ({ run, captured } = await sharedGoldenRun());
}, 600_000);
afterAll(async () => {
  await run?.close();
});

describe('golden corpus', () => {
  it('sends the same requests as the corpus was written with', () => {
    expect(captured.entries.map((e) => e.request)).toEqual(golden.entries.map((e) => e.request));
  });

  it('answers every request with the golden status, headers and body', () => {
    const byRequest = new Map(golden.entries.map((e) => [e.request, e]));
    const differences: string[] = [];
    for (const got of captured.entries) {
      const want = byRequest.get(got.request) as GoldenEntry | undefined;
      if (!want) continue;
      if (got.request === 'GET /api/openapi.json') {
        if (got.status !== want.status) differences.push(`${got.request}: status ${got.status}`);
        continue;
      }
      if (got.status !== want.status)
        differences.push(`${got.request}: status ${want.status} → ${got.status}`);
      const names = new Set([...Object.keys(want.headers), ...Object.keys(got.headers)]);
      for (const n of names) {
        if (want.headers[n] !== got.headers[n])
          differences.push(`${got.request}: header ${n} ${want.headers[n]} → ${got.headers[n]}`);
      }
      if (got.bodySha256 !== want.bodySha256)
        differences.push(`${got.request}: body (${want.bodyBytes} → ${got.bodyBytes} bytes)`);
    }
    expect(differences).toEqual([]);
  });

  it('serves the golden OpenAPI document, but for the documented fixes', async () => {
    const want = JSON.parse(await readFile(GOLDEN_OPENAPI_FILE, 'utf8')) as unknown;
    const diff = jsonDiff(want, captured.openapi);
    const unexplained = diff.filter((p) => !OPENAPI_CHANGES.some((c) => p === c || p.startsWith(`${c}/`)));
    expect(unexplained).toEqual([]);
    // Each listed fix must still be a difference (a stale entry would hide a regression).
    for (const c of OPENAPI_CHANGES) expect(diff.some((p) => p === c || p.startsWith(`${c}/`))).toBe(true);
  });
});

describe('golden answers against the OpenAPI document', () => {
  it('validates every JSON-like GET answer of a documented path (0 violations)', async () => {
    const doc = (await (await fetch(`${run.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const api = await openApiValidator(doc);
    const requests = goldenRequests();
    const paths = Object.keys(doc.paths);
    const violations: string[] = [];
    let checked = 0;
    const jsonTypes = new Set<string>();
    for (const [i, r] of requests.entries()) {
      const entry = captured.entries[i];
      if (!entry || r.method !== 'GET') continue;
      const t = templateOf(paths, r.path);
      if (!t || !doc.paths[t]?.get) continue;
      const ct = (entry.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      const body = captured.bodies.get(entry.request)?.toString('utf8') ?? '';
      const res = new Response(null, { status: entry.status, headers: { 'content-type': ct } });
      try {
        api.check(t, 'get', res, body);
      } catch (e) {
        violations.push(`${entry.request}: ${(e as Error).message.slice(0, 300)}`);
      }
      if (isJsonLike(ct) && entry.status !== 304) {
        checked++;
        jsonTypes.add(ct);
      }
    }
    expect(violations).toEqual([]);
    // The corpus covers the JSON API and CSL-JSON (the +json type the document once called a string).
    expect(checked).toBeGreaterThan(90);
    expect([...jsonTypes].sort()).toEqual(['application/json', 'application/vnd.citationstyles.csl+json']);
  });
});
