import type { BuiltTool, ToolResult } from './tool-def.ts';

type Json = Record<string, unknown>;

function plainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Json, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

/** Serialized results, so a cached tool result (get_benchmark's) is stringified once. */
const serialized = new WeakMap<ToolResult, string>();

/**
 * The hot path of an agent-facing MCP server is tools/call. A plain, single, already-parsed
 * tools/call request (JSON body, no task augmentation, no _meta) gets exactly the response the SDK's
 * Server behind a stateless JSON-response transport would send (`{result, jsonrpc, id}`, 200,
 * application/json; test/unit/mcp-fast-call.test.ts compares both paths), without building a Server and a
 * transport for the request. Everything else returns null and goes through the SDK.
 */
export function fastToolCall(
  tools: ReadonlyMap<string, BuiltTool>,
  parsed: unknown,
  contentType: string | null | undefined,
): Promise<Response> | null {
  if (!contentType?.includes('application/json')) return null;
  if (!plainObject(parsed) || !onlyKeys(parsed, ['jsonrpc', 'id', 'method', 'params'])) return null;
  if (parsed.jsonrpc !== '2.0' || parsed.method !== 'tools/call') return null;
  const id = parsed.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return null;
  const params = parsed.params;
  if (!plainObject(params) || !onlyKeys(params, ['name', 'arguments'])) return null;
  if (typeof params.name !== 'string') return null;
  if (params.arguments !== undefined && !plainObject(params.arguments)) return null;
  const tool = tools.get(params.name);
  if (!tool) return null;
  return tool.call(params.arguments).then((result) => {
    let body = serialized.get(result);
    if (body === undefined) {
      body = JSON.stringify(result);
      serialized.set(result, body);
    }
    return new Response(`{"result":${body},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`, {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  });
}
