import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureGolden, type GoldenRun, goldenRequests, startGoldenDemo } from './helpers/golden.ts';
import { isJsonLike, openApiValidator } from './helpers/openapi.ts';

/**
 * Every JSON answer (application/json and +json) of the golden corpus requests validates against
 * the document the service serves: the schema of its path, status and content type.
 */

let run: GoldenRun;
beforeAll(async () => {
  run = await startGoldenDemo();
}, 120_000);
afterAll(async () => {
  await run?.close();
});

/** The document path a request path falls under (`{x}` matches one segment). */
function templateOf(paths: readonly string[], path: string): string | undefined {
  const bare = path.split('?')[0] ?? path;
  return paths.find((t) => new RegExp(`^${t.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

describe('golden answers against the OpenAPI document', () => {
  it('validates every JSON-like GET answer of a documented path (0 violations)', async () => {
    const doc = (await (await fetch(`${run.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const api = await openApiValidator(doc);
    const requests = goldenRequests();
    const captured = await captureGolden(run.url, requests);
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
  }, 120_000);
});
