import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { UnavailableError } from '../publication/types.ts';
import { fastToolCall } from './fast-call.ts';
import { readBenchmarkResource, resourceList, resourceTemplate } from './resources.ts';
import type { BuiltTool } from './tool-def.ts';
import { compareProvidersTool } from './tools/compare-providers.ts';
import type { ToolContext } from './tools/context.ts';
import { getBenchmarkTool } from './tools/get-benchmark.ts';
import { getProviderTool } from './tools/get-provider.ts';
import { getSeriesTool } from './tools/get-series.ts';
import { listBenchmarksTool } from './tools/list-benchmarks.ts';
import { queryPromTool } from './tools/query-prom.ts';

export const MCP_SERVER_VERSION = '0.1.0';

export interface McpCore {
  readonly tools: readonly BuiltTool[];
  /** Answers one POST whose body the route already read, size-checked and parsed. */
  handle(req: Request, parsedBody: unknown): Promise<Response>;
  /** The SDK-equivalent answer to a plain tools/call, or null when the SDK must handle it. */
  fastCall(parsedBody: unknown, contentType: string | null | undefined): Promise<Response> | null;
}

const RESOURCE_NOT_FOUND = -32002;

/**
 * Everything that does not depend on the request (tool listings with their JSON Schemas, input
 * parsers, resource list, the Ajv validator) is built here once. The SDK binds a Server to one
 * transport at a time and a stateless transport to one request, so each POST gets a fresh pair;
 * that costs a few object allocations and five handler registrations.
 */
export function createMcpCore(base: ToolContext, siteName: string, simulated = false): McpCore {
  // The instructions promise simulated: true on every result: the tools learn it from here.
  const ctx: ToolContext = { ...base, simulated: base.simulated ?? simulated };
  const tools = [
    listBenchmarksTool(ctx),
    getBenchmarkTool(ctx),
    compareProvidersTool(ctx),
    queryPromTool(ctx),
    getSeriesTool(ctx),
    getProviderTool(ctx),
  ];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listToolsResult = { tools: tools.map((t) => t.listing as Tool) };
  const listResourcesResult = { resources: resourceList(ctx.publication) };
  const listTemplatesResult = { resourceTemplates: [resourceTemplate] };
  const serverInfo = { name: 'citebench', title: siteName, version: MCP_SERVER_VERSION };
  const serverOptions = {
    capabilities: { tools: {}, resources: {} },
    instructions: [
      // First, so an agent cannot relay demo numbers as measurements of real providers.
      ...(simulated
        ? [
            'SIMULATED DEMO DATA: this server publishes numbers from simulated providers, not measurements of the real APIs; every result carries simulated: true. Never present them as real results.',
          ]
        : []),
      `${siteName} publishes open, citable benchmarks of crypto infrastructure providers.`,
      'Start with list_benchmarks, then get_benchmark for full rankings and a paste-ready quote; cite its pageUrl.',
      "get_series gives each provider's history (24h to 90d) as the Stat published it; get_provider one provider's rank and value on every benchmark, with its change over 7 days. query_prom reads the raw samples with PromQL. All tools are read-only.",
    ].join(' '),
    // The default would build a new Ajv instance per Server; it is only used for elicitation.
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
  };

  const callTool = async (name: string, args: unknown): Promise<CallToolResult> => {
    const tool = byName.get(name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${name}". Tools: ${[...byName.keys()].join(', ')}`,
      );
    }
    return (await tool.call(args)) as CallToolResult;
  };

  const readResource = async (uri: string) => {
    let item: Awaited<ReturnType<typeof readBenchmarkResource>>;
    try {
      item = await readBenchmarkResource(ctx.publication, uri);
    } catch (e) {
      const msg =
        e instanceof UnavailableError ? 'benchmarks are temporarily unavailable' : 'resource unavailable';
      throw new McpError(ErrorCode.InternalError, msg);
    }
    if (!item) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, {
        uris: listResourcesResult.resources.map((r) => r.uri),
      });
    }
    return { contents: [item] };
  };

  return {
    tools,
    fastCall: (parsedBody, contentType) => fastToolCall(byName, parsedBody, contentType),
    async handle(req, parsedBody) {
      // Deprecated for "advanced use cases": precomputed listings are exactly that (McpServer
      // would re-derive JSON Schemas from zod on every tools/list).
      const server = new Server(serverInfo, serverOptions);
      server.setRequestHandler(ListToolsRequestSchema, () => listToolsResult);
      server.setRequestHandler(CallToolRequestSchema, (r) => callTool(r.params.name, r.params.arguments));
      server.setRequestHandler(ListResourcesRequestSchema, () => listResourcesResult);
      server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listTemplatesResult);
      server.setRequestHandler(ReadResourceRequestSchema, (r) => readResource(r.params.uri));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // No close(): nothing stays pending once the JSON response resolves (no SSE, no timers),
      // and Protocol's close path builds an McpError with a stack trace per request.
      return transport.handleRequest(req, { parsedBody });
    },
  };
}
