import { isIP } from 'node:net';
import { z } from 'zod';
import { MAX_SYNTHETIC_PROVIDERS } from './core/providers.ts';
import { sourceUrlProblem } from './core/source-url.ts';
import { ProblemsError } from './problems-error.ts';

const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** Integer-valued variables: digits only, so "8080abc" or "1e3" are refused, not coerced. */
export function intVar(min: number, max: number, message: string, fallback: number) {
  return z
    .string()
    .regex(/^-?\d+$/, message)
    .optional()
    .transform((v) => (v === undefined ? fallback : Number(v)))
    .refine((n) => n >= min && n <= max, message);
}

function list(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** An http(s) origin exactly as a browser sends one (a trailing slash tolerated). */
function isOrigin(s: string): boolean {
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(s)) return false;
  try {
    return new URL(s).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A name or address to listen on: an IP literal or a host name, without scheme, port or path
 * (`HOST=http://0.0.0.0` or `HOST=localhost:8080` would otherwise surface only when the port is bound).
 */
function isListenHost(h: string): boolean {
  return (
    isIP(h) !== 0 ||
    /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
      h,
    )
  );
}

const envSchema = z.object({
  PORT: intVar(0, 65535, 'is not a port (an integer from 0 to 65535)', 8080),
  HOST: z
    .string()
    .refine(isListenHost, 'is not a host name or IP address to listen on (e.g. 127.0.0.1, 0.0.0.0, ::)')
    .default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  // z.url() alone takes "localhost:8080" as a URL with the scheme "localhost:".
  BASE_URL: z
    .url({
      protocol: /^https?$/,
      error: 'is not an http(s) URL with a scheme, e.g. https://bench.example.org',
    })
    .optional()
    .transform((u) => u?.replace(/\/+$/, '')),
  /**
   * The public source of the harness, `{family}` replaced per benchmark. Empty counts as unset (a
   * compose file's `SOURCE_URL=${SOURCE_URL}` passes an empty string); `serve` refuses to start
   * without it (src/main.ts), the demo and `--simulate` default it (src/core/source-url.ts).
   */
  SOURCE_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .superRefine((v, ctx) => {
      const problem = v === undefined ? null : sourceUrlProblem(v);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
  SITE_NAME: z
    .string()
    .min(1, 'must not be empty')
    .max(80, 'is longer than 80 characters')
    .default('Citebench'),
  LOG_LEVEL: z.enum(logLevels, `must be one of ${logLevels.join(', ')}`).default('info'),
  BENCHMARKS_DIR: z.string().min(1).default('./benchmarks'),
  DUCKDB_MEMORY_LIMIT: z
    .string()
    .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, 'is not a size such as 256MB or 1GiB')
    .default('256MB'),
  /** Extra allowed Origins / Hosts for the MCP endpoint, comma-separated. */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      // A browser sends an Origin as scheme://host[:port]: an entry with a path, or no scheme,
      // would never match one, and the endpoint would refuse the client it was meant to allow.
      const bad = list(v).find((o) => !isOrigin(o));
      if (bad !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `is not a list of origins (scheme://host[:port], e.g. https://app.example.org): "${bad.slice(0, 60)}" is not one`,
        });
    }),
  MCP_ALLOWED_HOSTS: z.string().default(''),
  MCP_RATE_LIMIT_PER_MIN: intVar(1, 100000, 'is not an integer from 1 to 100000', 120),
  MCP_FAST_PATH: z.enum(['true', 'false'], 'must be true or false').default('true'),
  // Read by the harness and the demo; validated here so a typo stops every command the same way.
  HARNESS_ENABLED: z.enum(['true', 'false'], 'must be true or false').default('true'),
  DEMO_SEED: intVar(-2147483648, 2147483647, 'is not an integer', 42),
  DEMO_SPEED: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'is not a number from 1 to 10000')
    .optional()
    .transform((v) => (v === undefined ? 1 : Number(v)))
    .refine((n) => n >= 1 && n <= 10000, 'is not a number from 1 to 10000'),
  // The demo clock's start on a fresh DATA_DIR (src/demo/demo-clock.ts): tests place it shortly
  // before a simulated midnight, so a day closes within seconds at a high DEMO_SPEED.
  DEMO_START: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || (z.iso.datetime().safeParse(v).success && Number.isFinite(Date.parse(v))),
      'is not an ISO 8601 UTC date-time (e.g. 2026-03-10T23:50:00Z)',
    )
    .transform((v) => (v === undefined ? null : Date.parse(v))),
  DEMO_DAYS: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'is not a number of days from 0.01 to 90')
    .optional()
    .transform((v) => (v === undefined ? 3 : Number(v)))
    .refine((n) => n >= 0.01 && n <= 90, 'is not a number of days from 0.01 to 90'),
  // Scale benchmarks only (bench/catalogue-scale.ts): registers synthetic-01…NN as providers.
  CITEBENCH_SYNTHETIC_PROVIDERS: intVar(
    0,
    MAX_SYNTHETIC_PROVIDERS,
    `is not an integer from 0 to ${MAX_SYNTHETIC_PROVIDERS}`,
    0,
  ),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly siteName: string;
  /** SOURCE_URL as given (`{family}` unreplaced), or null when unset. */
  readonly sourceUrl: string | null;
  readonly logLevel: (typeof logLevels)[number];
  readonly benchmarksDir: string;
  readonly duckdbMemoryLimit: string;
  readonly mcpAllowedOrigins: readonly string[];
  readonly mcpAllowedHosts: readonly string[];
  readonly mcpRateLimitPerMin: number;
  /** Answer plain tools/call requests without a per-request SDK transport (same bytes on the wire). */
  readonly mcpFastPath: boolean;
  /** HARNESS_ENABLED: measure (true) or serve stored data only (false). */
  readonly harnessEnabled: boolean;
  /** DEMO_SEED and DEMO_SPEED: the simulator's seed and the demo clock's multiplier. */
  readonly demoSeed: number;
  readonly demoSpeed: number;
  /** DEMO_START: the demo clock's simulated start on a fresh DATA_DIR (epoch ms), null for now. */
  readonly demoStart: number | null;
  /** DEMO_DAYS: how many days a fresh demo backfills (default 3). */
  readonly demoDays: number;
  /** The data comes from simulated providers (the demo, `serve --simulate`); set by the command, not env. */
  readonly simulated: boolean;
  /**
   * CITEBENCH_SYNTHETIC_PROVIDERS: how many synthetic providers (synthetic-01…) start-up registers
   * beside the real ones, for scale benchmarks; 0 (the default) registers none.
   */
  readonly syntheticProviders: number;
}

export class ConfigError extends ProblemsError {}

/**
 * `PORT=abc is not a port …`: the variable, the value given (shortened) and what is wrong. A
 * secret (an API key) is named without its value, which must not reach a log.
 */
export function describeVar(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  message: string,
  secret = false,
): string {
  if (secret) return `${name}=(hidden) ${message}`;
  const raw = env[name];
  const short = raw !== undefined && raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
  // Quoted only when needed to see where it starts and ends (empty, spaces, quotes).
  const shown =
    short === undefined ? '(unset)' : /^[\w.:/@,+-]+$/.test(short) ? short : JSON.stringify(short);
  return `${name}=${shown} ${message}`;
}

/**
 * Validates the environment; the error names every bad variable with the value it was given, on one
 * line, and each alone in its `problems` (start-up prints one line each).
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const res = envSchema.safeParse(env);
  if (!res.success) {
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const i of res.error.issues) {
      const name = String(i.path[0] ?? '');
      if (seen.has(name)) continue;
      seen.add(name);
      lines.push(describeVar(env, name, i.message));
    }
    throw new ConfigError(
      `invalid configuration: ${lines.join('; ')}`,
      lines.map((l) => `invalid configuration: ${l}`),
    );
  }
  const e = res.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    baseUrl: e.BASE_URL ?? `http://localhost:${e.PORT}`,
    siteName: e.SITE_NAME,
    sourceUrl: e.SOURCE_URL ?? null,
    logLevel: e.LOG_LEVEL,
    benchmarksDir: e.BENCHMARKS_DIR,
    duckdbMemoryLimit: e.DUCKDB_MEMORY_LIMIT,
    mcpAllowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
    mcpAllowedHosts: list(e.MCP_ALLOWED_HOSTS),
    mcpRateLimitPerMin: e.MCP_RATE_LIMIT_PER_MIN,
    mcpFastPath: e.MCP_FAST_PATH === 'true',
    harnessEnabled: e.HARNESS_ENABLED === 'true',
    demoSeed: e.DEMO_SEED,
    demoSpeed: e.DEMO_SPEED,
    demoStart: e.DEMO_START,
    demoDays: e.DEMO_DAYS,
    simulated: false,
    syntheticProviders: e.CITEBENCH_SYNTHETIC_PROVIDERS,
  };
}

/** A config for tests and tools, without reading the environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), baseUrl: 'http://localhost:8080', ...overrides };
}
