import { z } from 'zod';
import { tupleAsBoundedArray } from '../core/json-schema-tuples.ts';

/** The tools/call result shape (MCP CallToolResult), kept free of SDK types so tools stay plain. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolSpec<S extends z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: S;
  /** An object schema, or a union of object schemas (one tool, several documented result shapes). */
  readonly output: z.ZodObject | z.ZodUnion<readonly z.ZodObject[]>;
  run(input: z.output<S>): Promise<ToolResult>;
}

type JsonObject = Record<string, unknown>;

/** A tool ready to serve: its tools/list entry is computed once, its input parsed per call. */
export interface BuiltTool {
  readonly name: string;
  readonly listing: JsonObject;
  call(args: unknown): Promise<ToolResult>;
}

export function toolError(code: string, message: string): ToolResult {
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
}

export function toolOk(structured: Record<string, unknown>, text = JSON.stringify(structured)): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function inlineRefs(node: unknown, defs: JsonObject, relaxed: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, defs, relaxed));
  if (!node || typeof node !== 'object') return node;
  const obj = node as JsonObject;
  const ref = obj.$ref;
  if (typeof ref === 'string') {
    const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
    if (!m?.[1] || !(m[1] in defs)) throw new Error(`cannot inline ${ref}`);
    return inlineRefs(defs[m[1]], defs, relaxed);
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === '$defs' || k === 'definitions' || k === '$schema') continue;
    // Output schemas stay open so a field added later does not break clients that cached them.
    if (relaxed && k === 'additionalProperties' && v === false) continue;
    out[k] = inlineRefs(v, defs, relaxed);
  }
  return out;
}

/**
 * JSON Schema for tools/list: draft-07 (what the SDK's Ajv validator speaks), `$ref`s inlined
 * because MCP wants `type: "object"` at the root; tuples as in the OpenAPI document (tupleAsBoundedArray).
 */
export function objectJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const raw = z.toJSONSchema(schema, {
    io,
    target: 'draft-7',
    unrepresentable: 'any',
    override: tupleAsBoundedArray,
  }) as JsonObject;
  const defs = (raw.$defs ?? raw.definitions ?? {}) as JsonObject;
  const out = inlineRefs(raw, defs, io === 'output') as JsonObject;
  // MCP wants `type: "object"` at the root: a union of objects is an object that is one of them.
  const anyOf = out.anyOf;
  if (
    out.type === undefined &&
    Array.isArray(anyOf) &&
    anyOf.every((x) => (x as JsonObject).type === 'object')
  ) {
    out.type = 'object';
  }
  if (out.type !== 'object') throw new Error('tool schemas must be objects');
  return out;
}

/** Each issue on its path; an argument the tool does not take is named with those it does. */
function describeIssues(err: z.ZodError, tool: string, takes: readonly string[]): string {
  return err.issues
    .map((i) => {
      if (i.code === 'unrecognized_keys' && i.path.length === 0) {
        const names = i.keys.map((k) => `"${k.slice(0, 64)}"`).join(', ');
        return `${names} ${i.keys.length === 1 ? 'is not an argument' : 'are not arguments'} of ${tool}; it takes ${takes.join(', ')}`;
      }
      return `${i.path.length ? i.path.map(String).join('.') : 'arguments'}: ${i.message}`;
    })
    .join('; ');
}

export function buildTool<S extends z.ZodType>(spec: ToolSpec<S>): BuiltTool {
  const listing: JsonObject = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: objectJsonSchema(spec.input, 'input'),
    outputSchema: objectJsonSchema(spec.output, 'output'),
    annotations: { title: spec.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
  const takes = Object.keys((listing.inputSchema as { properties?: JsonObject }).properties ?? {});
  return {
    name: spec.name,
    listing,
    async call(args) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success)
        return toolError('invalid_arguments', describeIssues(parsed.error, spec.name, takes));
      return spec.run(parsed.data);
    },
  };
}
