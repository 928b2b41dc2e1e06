/** A POST of one MCP tools/call to /api/mcp/mcp, as a client speaking protocol 2025-06-18 sends it. */
export function toolCallInit(
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  };
}
