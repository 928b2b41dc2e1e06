import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** Protocol versions the SDK's transport negotiates; re-exported so SDK imports stay in src/mcp. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = SDK_VERSIONS;
