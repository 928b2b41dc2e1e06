import { describeVar } from '../config.ts';
import { PER_USER_RPC, PROVIDERS } from '../core/providers.ts';

/**
 * Where the json-rpc family sends its probes, from one mechanism: the catalogue's URL template per
 * chain with `{key}` filled from the provider's `apiKeyEnv`, unless `<PROVIDER>_RPC_URL_<CHAIN>`
 * overrides that one URL (QuickNode and Chainstack issue each account its own URL). Keys and URLs
 * are secrets: no error, log line or label ever holds one, so this module hands out the URL only to
 * the code that sends the request and names an endpoint by (provider, chain) everywhere else.
 */
export interface RpcConfig {
  /** provider → chain → URL (a secret). Only endpoints that can be called. */
  readonly endpoints: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** provider → chains it would be measured on but cannot (no key, no per-user URL). */
  readonly notConfigured: ReadonlyMap<string, readonly string[]>;
  /** chain → the reference node every answer is checked against (REFERENCE_RPC_<CHAIN>). */
  readonly references: ReadonlyMap<string, string>;
}

/** `ethereum` → `ETHEREUM`; `sim-dune` → `SIM_DUNE`. */
const envPart = (s: string) => s.toUpperCase().replace(/-/g, '_');

export const rpcUrlVar = (provider: string, chain: string) =>
  `${envPart(provider)}_RPC_URL_${envPart(chain)}`;
export const referenceVar = (chain: string) => `REFERENCE_RPC_${envPart(chain)}`;

function httpUrl(raw: string): string | null {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? raw : null;
  } catch {
    return null;
  }
}

/**
 * Reads the RPC endpoints of every catalogue provider with `rpc` entries and the reference node of
 * every chain they serve. Returns the problems as lines naming the variable, never its value.
 */
export function loadRpcConfig(env: Readonly<Record<string, string | undefined>>): {
  readonly config: RpcConfig;
  readonly issues: readonly string[];
} {
  const chains = new Set<string>();
  const issues: string[] = [];
  const endpoints = new Map<string, Map<string, string>>();
  const notConfigured = new Map<string, string[]>();
  for (const info of PROVIDERS.values()) {
    if (!info.rpc) continue;
    const key = info.apiKeyEnv ? env[info.apiKeyEnv]?.trim() || undefined : undefined;
    for (const [chain, template] of Object.entries(info.rpc)) {
      chains.add(chain);
      const name = rpcUrlVar(info.slug, chain);
      const override = env[name]?.trim() || undefined;
      let url: string | null = null;
      if (override !== undefined) {
        url = httpUrl(override);
        if (url === null) issues.push(describeVar(env, name, 'is not an http(s) URL', true));
      } else if (template !== PER_USER_RPC && (!template.includes('{key}') || key !== undefined)) {
        // The key is a path or query part: encoded so that no character of it can change the URL.
        url = template.replace('{key}', encodeURIComponent(key ?? ''));
      }
      if (url === null) {
        const list = notConfigured.get(info.slug) ?? [];
        list.push(chain);
        notConfigured.set(info.slug, list);
        continue;
      }
      let byChain = endpoints.get(info.slug);
      if (!byChain) {
        byChain = new Map();
        endpoints.set(info.slug, byChain);
      }
      byChain.set(chain, url);
    }
  }
  const references = new Map<string, string>();
  for (const chain of chains) {
    const name = referenceVar(chain);
    const raw = env[name]?.trim();
    if (!raw) continue;
    const url = httpUrl(raw);
    if (url === null) issues.push(describeVar(env, name, 'is not an http(s) URL', true));
    else references.set(chain, url);
  }
  return { config: { endpoints, notConfigured, references }, issues };
}
