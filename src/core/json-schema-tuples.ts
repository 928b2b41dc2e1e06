/**
 * How a tuple is written in the JSON Schema the service publishes (the OpenAPI document and the
 * MCP tool listings): a bounded array, never `prefixItems` with `items: false`.
 */
import type { z } from 'zod';

type JsonSchema = z.core.JSONSchema.BaseSchema;
type Element = z.core.JSONSchema._JSONSchema;

/**
 * A `z.toJSONSchema` override: each tuple becomes `type: array`, `items` (the one schema its
 * elements share, else anyOf of them), `minItems`/`maxItems` as zod wrote them. Zod writes a closed
 * tuple as `prefixItems` + `items: false` (2020-12) or `items: [...]` + `additionalItems: false`
 * (draft-07). Both are valid, each in its own draft, and each is misread in the other: Prism 5
 * validates a schema without `$schema` as draft-07, ignores `prefixItems` and reads `items: false`
 * as "no element at all" (764 response violations in 28 of the 415 requests of
 * test/e2e/openapi-prism.suite.ts), and a 2020-12 reader (MCP's default dialect since 2025-11-25)
 * refuses the draft-07 array form (4 of the 6 tool output schemas). Position is lost, so a tuple's
 * description says which element is which.
 */
export function tupleAsBoundedArray(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  if (ctx.zodSchema._zod.def.type !== 'tuple') return;
  const json = ctx.jsonSchema;
  const positional = json.prefixItems ?? (Array.isArray(json.items) ? json.items : undefined);
  if (!positional) return;
  const restOf = (s: Element | Element[] | undefined): Element[] =>
    s === undefined || s === false || Array.isArray(s) ? [] : [s];
  const rest = json.prefixItems ? restOf(json.items) : restOf(json.additionalItems);
  delete json.prefixItems;
  delete json.additionalItems;
  json.items = shared([...positional, ...rest]);
}

/**
 * The one schema every element has, else anyOf of the distinct ones (kept in order). A `true`
 * element admits anything, a `false` one nothing; no element at all: false.
 */
function shared(elements: readonly Element[]): Element {
  if (elements.includes(true)) return true;
  const distinct = new Map<string, JsonSchema>();
  for (const e of elements) if (typeof e === 'object') distinct.set(JSON.stringify(e), e);
  const all = [...distinct.values()];
  if (all.length === 0) return false;
  return all.length === 1 ? (all[0] as JsonSchema) : { anyOf: all };
}
