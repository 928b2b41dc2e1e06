import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureGolden,
  GOLDEN_FILE,
  GOLDEN_OPENAPI_FILE,
  type GoldenCorpus,
  type GoldenEntry,
  type GoldenRun,
  startGoldenDemo,
} from './helpers/golden.ts';

/**
 * Byte identity: every GET answer of the demo at a fixed seed and clock equals the committed corpus
 * (test/fixtures/golden.json, written by `npm run golden`), Date aside. The OpenAPI document is
 * compared parsed; its only allowed differences are listed in OPENAPI_CHANGES.
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

let run: GoldenRun;
let captured: Awaited<ReturnType<typeof captureGolden>>;
let golden: GoldenCorpus;
beforeAll(async () => {
  golden = JSON.parse(await readFile(GOLDEN_FILE, 'utf8')) as GoldenCorpus;
  run = await startGoldenDemo();
  captured = await captureGolden(run.url);
}, 120_000);
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
