import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { describeVar, intVar } from '../config.ts';
import { PROVIDERS } from '../core/providers.ts';
import { ProblemsError } from '../problems-error.ts';
import { loadRpcConfig, type RpcConfig } from './rpc-config.ts';

/** Providers the harness has adapters for, with their production base URLs. */
export const DEFAULT_BASE_URLS = {
  geckoterminal: 'https://api.geckoterminal.com',
  codex: 'https://graph.codex.io',
  mobula: 'https://api.mobula.io',
  coinpaprika: 'https://api.coinpaprika.com',
  covalent: 'https://api.covalenthq.com',
  coinstats: 'https://openapiv1.coinstats.app',
  'sim-dune': 'https://api.sim.dune.com',
  coingecko: 'https://api.coingecko.com',
  bitquery: 'https://streaming.bitquery.io',
} as const;

export type HarnessProvider = keyof typeof DEFAULT_BASE_URLS;
export const HARNESS_PROVIDERS = Object.keys(DEFAULT_BASE_URLS) as HarnessProvider[];

export interface ProviderConfig {
  readonly slug: HarnessProvider;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly concurrency: number;
  /** False when the registry says a key is required and none is set: skipped, never zero. */
  readonly configured: boolean;
}

export interface HarnessConfig {
  readonly providers: Readonly<Record<HarnessProvider, ProviderConfig>>;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxRetries: number;
  readonly retryMaxWaitMs: number;
  readonly maxPages: number;
  /** Distinct transaction hashes held per provider and cell (64-bit digests, 16 bytes a slot). */
  readonly maxHashesPerCell: number;
  readonly cellConcurrency: number;
  /** Per-cycle deadline; undefined = cadence minus one minute (at least half the cadence). */
  readonly cycleDeadlineMs?: number;
  /** HARNESS_REGION: the `region` label of every sample this harness writes (none when unset). */
  readonly region?: string;
  /** A JSON-RPC probe's timeout, ms: a failed probe is stored as this time. */
  readonly rpcTimeoutMs: number;
  /**
   * HARNESS_PROBE_SEED: seeds each slot's json-rpc question (probeDraw). Unset, a random one per
   * start, so no provider can know the next slot's account, depth or log range in advance.
   */
  readonly probeSeed: number;
  /**
   * HARNESS_LOOP_DELAY_LIMIT_MS: our event loop's delay over a live json-rpc probe's timed interval
   * above which a correct answer is not scored (loop_delay). Unset, the latency benchmark's tie
   * margin, as its methodology states; tests of other rules raise it.
   */
  readonly loopDelayLimitMs?: number;
  /** The json-rpc family's endpoints and reference nodes (secrets: see rpc-config.ts). */
  readonly rpc: RpcConfig;
}

/** `sim-dune` → `SIM_DUNE`: the prefix of a provider's env variables. */
export function envPrefix(slug: string): string {
  return slug.toUpperCase().replace(/-/g, '_');
}

// Digits only, as src/config.ts reads integers: "soon", "1e3" or "30s" are refused, not coerced.
const POSITIVE = 'is not a positive integer';
const positiveInt = (def: number) => intVar(1, Number.MAX_SAFE_INTEGER, POSITIVE, def);
const optionalPositiveInt = z
  .string()
  .regex(/^\d+$/, POSITIVE)
  .optional()
  .transform((v) => (v === undefined ? undefined : Number(v)))
  .refine((n) => n === undefined || (n >= 1 && n <= Number.MAX_SAFE_INTEGER), POSITIVE);
const url = z
  .url('is not an http(s) URL')
  .refine((u) => /^https?:\/\//.test(u), 'is not an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

const globalSchema = z.object({
  HARNESS_TIMEOUT_MS: positiveInt(30_000),
  HARNESS_MAX_BODY_BYTES: positiveInt(32 * 1024 * 1024),
  HARNESS_MAX_RETRIES: intVar(0, 10, 'is not an integer from 0 to 10', 2),
  HARNESS_RETRY_MAX_WAIT_MS: intVar(0, Number.MAX_SAFE_INTEGER, 'is not a non-negative integer', 60_000),
  HARNESS_MAX_PAGES: positiveInt(1000),
  HARNESS_MAX_HASHES: positiveInt(1_000_000),
  HARNESS_PROVIDER_CONCURRENCY: positiveInt(2),
  // Cells run one at a time (providers in parallel within a cell): bounds memory to one cell's hash sets.
  HARNESS_CELL_CONCURRENCY: positiveInt(1),
  HARNESS_CYCLE_DEADLINE_MS: optionalPositiveInt,
  // The json-rpc family's timeout, stated in its methodology (10 s); tests shorten it.
  HARNESS_RPC_TIMEOUT_MS: positiveInt(10_000),
  // Seeds the json-rpc probes' per-slot draws (account, depth, log range); unset, one is drawn at start.
  HARNESS_PROBE_SEED: z
    .string()
    .regex(/^\d{1,15}$/, 'is not a non-negative integer')
    .optional()
    .transform((v) => (v === undefined ? undefined : Number(v))),
  // Overrides the json-rpc loop-delay bound (default: the latency benchmark's tie margin).
  HARNESS_LOOP_DELAY_LIMIT_MS: optionalPositiveInt,
  HARNESS_REGION: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'is not a label value such as eu-west')
    .optional(),
});

const providerSchema = z.object({
  baseUrl: url.optional(),
  apiKey: z
    .string()
    .optional()
    .transform((k) => (k?.trim() ? k.trim() : undefined)),
  timeoutMs: optionalPositiveInt,
  concurrency: optionalPositiveInt,
});

export class HarnessConfigError extends ProblemsError {}

/**
 * Validates the harness environment; the error names every bad variable with the value it was
 * given, on one line, as src/config.ts does (`HARNESS_TIMEOUT_MS=soon is not a positive integer`),
 * except an API key, which is never echoed; each alone in its `problems`.
 */
export function loadHarnessConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): HarnessConfig {
  // Keys and whether they are required come from the provider catalogue (benchmarks/providers.yml):
  // without it every keyed provider would silently run keyless, so refuse instead.
  if (PROVIDERS.size === 0) {
    throw new HarnessConfigError(
      'the provider catalogue is not loaded: load the benchmarks (loadSpecs) before the harness configuration',
    );
  }
  const issues: string[] = [];
  const g = globalSchema.safeParse(env);
  const once = new Set<string>();
  const bad = (name: string, message: string, secret = false) => {
    if (once.has(name)) return;
    once.add(name);
    issues.push(describeVar(env, name, message, secret));
  };
  if (!g.success) for (const i of g.error.issues) bad(String(i.path[0] ?? ''), i.message);
  const providers: Partial<Record<HarnessProvider, ProviderConfig>> = {};
  for (const slug of HARNESS_PROVIDERS) {
    const p = envPrefix(slug);
    const info = PROVIDERS.get(slug);
    const raw = {
      baseUrl: env[`${p}_BASE_URL`] || undefined,
      apiKey: info?.apiKeyEnv ? env[info.apiKeyEnv] : undefined,
      timeoutMs: env[`${p}_TIMEOUT_MS`] || undefined,
      concurrency: env[`${p}_CONCURRENCY`] || undefined,
    };
    const r = providerSchema.safeParse(raw);
    if (!r.success) {
      for (const i of r.error.issues) {
        const field = String(i.path[0]);
        const name =
          field === 'apiKey'
            ? (info?.apiKeyEnv ?? '')
            : `${p}_${{ baseUrl: 'BASE_URL', timeoutMs: 'TIMEOUT_MS', concurrency: 'CONCURRENCY' }[field] ?? field}`;
        bad(name, i.message, field === 'apiKey');
      }
      continue;
    }
    if (!g.success) continue;
    const apiKey = r.data.apiKey;
    providers[slug] = {
      slug,
      baseUrl: r.data.baseUrl ?? DEFAULT_BASE_URLS[slug],
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: r.data.timeoutMs ?? g.data.HARNESS_TIMEOUT_MS,
      concurrency: r.data.concurrency ?? g.data.HARNESS_PROVIDER_CONCURRENCY,
      configured: !(info?.keyRequired ?? false) || apiKey !== undefined,
    };
  }
  const rpc = loadRpcConfig(env);
  issues.push(...rpc.issues);
  if (issues.length > 0 || !g.success) {
    throw new HarnessConfigError(
      `invalid harness configuration: ${issues.join('; ')}`,
      issues.map((i) => `invalid harness configuration: ${i}`),
    );
  }
  const e = g.data;
  return {
    providers: providers as Record<HarnessProvider, ProviderConfig>,
    timeoutMs: e.HARNESS_TIMEOUT_MS,
    maxBodyBytes: e.HARNESS_MAX_BODY_BYTES,
    maxRetries: e.HARNESS_MAX_RETRIES,
    retryMaxWaitMs: e.HARNESS_RETRY_MAX_WAIT_MS,
    maxPages: e.HARNESS_MAX_PAGES,
    maxHashesPerCell: e.HARNESS_MAX_HASHES,
    cellConcurrency: e.HARNESS_CELL_CONCURRENCY,
    ...(e.HARNESS_CYCLE_DEADLINE_MS !== undefined ? { cycleDeadlineMs: e.HARNESS_CYCLE_DEADLINE_MS } : {}),
    ...(e.HARNESS_REGION ? { region: e.HARNESS_REGION } : {}),
    rpcTimeoutMs: e.HARNESS_RPC_TIMEOUT_MS,
    ...(e.HARNESS_LOOP_DELAY_LIMIT_MS !== undefined
      ? { loopDelayLimitMs: e.HARNESS_LOOP_DELAY_LIMIT_MS }
      : {}),
    probeSeed: e.HARNESS_PROBE_SEED ?? randomInt(1, 2 ** 31),
    rpc: rpc.config,
  };
}

/** The env a harness needs to talk to a simulator: base-URL overrides plus the simulator's keys. */
export function simulatorEnv(
  baseUrls: Readonly<Record<string, string>>,
  keys: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const slug of HARNESS_PROVIDERS) {
    const u = baseUrls[slug];
    if (u) env[`${envPrefix(slug)}_BASE_URL`] = u;
    const k = keys[slug];
    const keyEnv = PROVIDERS.get(slug)?.apiKeyEnv;
    if (k && keyEnv) env[keyEnv] = k;
  }
  return { ...env, ...extra };
}
