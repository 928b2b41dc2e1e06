import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tupleAsBoundedArray } from '../../src/core/json-schema-tuples.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Tuples are published as bounded arrays (src/core/json-schema-tuples.ts): `prefixItems` with
 * `items: false` is read by Prism 5 and common generators as "no element", and the draft-07 form
 * (`items: [...]`) is invalid for a 2020-12 reader, MCP's default dialect. test/e2e/openapi-prism.suite.ts
 * checks the answers through Prism itself; this checks the shapes in process.
 */

type Json = Record<string, unknown>;

/** JSON pointers of every tuple form in a schema tree. */
function tupleForms(node: unknown, at = ''): string[] {
  if (!node || typeof node !== 'object') return [];
  const o = node as Json;
  const here = [
    ...('prefixItems' in o ? [`${at}/prefixItems`] : []),
    ...(o.items === false ? [`${at}/items (false)`] : []),
    ...(Array.isArray(o.items) ? [`${at}/items (array)`] : []),
    ...('additionalItems' in o ? [`${at}/additionalItems`] : []),
  ];
  return [...here, ...Object.entries(o).flatMap(([k, v]) => tupleForms(v, `${at}/${k}`))];
}

let srv: Running;
let doc: { components: { schemas: Record<string, Json> } };
let tools: Array<{ name: string; inputSchema: Json; outputSchema: Json }>;
beforeAll(async () => {
  srv = await startServer();
  doc = await (await srv.get('/api/openapi.json')).json();
  const res = await srv.get('/api/mcp/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  tools = ((await res.json()) as { result: { tools: typeof tools } }).result.tools;
}, 60_000);
afterAll(() => srv.close());

describe('the OpenAPI document', () => {
  it('writes no tuple form anywhere', () => {
    expect(tupleForms(doc)).toEqual([]);
  });

  it('has one Interval, two numbers, referenced (nullable) by every [lo, hi] it publishes', () => {
    expect(doc.components.schemas.Interval).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 2,
      maxItems: 2,
      description: expect.stringMatching(/\[lo, hi\].*lower end first, the upper end second/),
    });
    type Obj = { properties: Record<string, Json & { items?: Obj }> };
    const s = doc.components.schemas as Record<string, Obj>;
    const props = (schema: string) => s[schema]?.properties ?? {};
    const item = (schema: string, list: string) => props(schema)[list]?.items?.properties ?? {};
    const uses = {
      'Ci95.p50': props('Ci95').p50,
      'Ci95.p90': props('Ci95').p90,
      'Ci95.p99': props('Ci95').p99,
      'Compare.shared[].aCi95': item('Compare', 'shared').aCi95,
      'Compare.shared[].bCi95': item('Compare', 'shared').bCi95,
      'ProviderProfile.benchmarks[].ci95': item('ProviderProfile', 'benchmarks').ci95,
    };
    for (const [where, use] of Object.entries(uses)) {
      expect(use?.anyOf, where).toEqual([{ $ref: '#/components/schemas/Interval' }, { type: 'null' }]);
    }
  });
});

describe('the MCP tool listings', () => {
  it('write no tuple form, and every schema compiles in draft-07 and in 2020-12', () => {
    expect(tools.length).toBeGreaterThan(5);
    const draft7 = new Ajv({ strict: false, validateFormats: false });
    const d2020 = new Ajv2020({ strict: false, validateFormats: false });
    const failures: string[] = [];
    for (const t of tools) {
      for (const [key, schema] of [
        ['inputSchema', t.inputSchema],
        ['outputSchema', t.outputSchema],
      ] as const) {
        failures.push(...tupleForms(schema).map((p) => `${t.name} ${key}${p}`));
        for (const [name, ajv] of [
          ['draft-07', draft7],
          ['2020-12', d2020],
        ] as const) {
          try {
            ajv.compile(schema);
          } catch (e) {
            failures.push(`${t.name} ${key} (${name}): ${(e as Error).message.slice(0, 200)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('tupleAsBoundedArray', () => {
  const accepts = (schema: z.ZodType, target: 'draft-2020-12' | 'draft-7') => {
    const json = z.toJSONSchema(schema, { target, override: tupleAsBoundedArray }) as Json;
    expect(tupleForms(json)).toEqual([]);
    const ajv = target === 'draft-7' ? new Ajv({ strict: false }) : new Ajv2020({ strict: false });
    const validate = ajv.compile(json);
    return (value: unknown) => validate(value);
  };

  for (const target of ['draft-2020-12', 'draft-7'] as const) {
    it(`${target}: a closed tuple is its elements' union, with its exact length`, () => {
      const ok = accepts(z.tuple([z.number(), z.string()]), target);
      expect([ok([1, 'a']), ok(['a', 1]), ok([1]), ok([1, 'a', 'b']), ok([true, 1])]).toEqual([
        true,
        true,
        false,
        false,
        false,
      ]);
    });

    it(`${target}: a rest element joins the union and lifts the upper bound`, () => {
      const ok = accepts(z.tuple([z.number()], z.boolean()), target);
      expect([ok([1]), ok([1, true, false]), ok([]), ok([1, 'a'])]).toEqual([true, true, false, false]);
    });
  }
});
