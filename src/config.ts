import { z } from 'zod';

const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  BASE_URL: z
    .url()
    .optional()
    .transform((u) => u?.replace(/\/+$/, '')),
  SITE_NAME: z.string().min(1).max(80).default('Citebench'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  BENCHMARKS_DIR: z.string().min(1).default('./benchmarks'),
  DUCKDB_MEMORY_LIMIT: z
    .string()
    .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, 'must look like 256MB or 1GiB')
    .default('256MB'),
  /** Extra allowed Origins / Hosts for the MCP endpoint, comma-separated. */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  MCP_ALLOWED_HOSTS: z.string().default(''),
  MCP_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100000).default(120),
  MCP_FAST_PATH: z.enum(['true', 'false']).default('true'),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly siteName: string;
  readonly logLevel: (typeof logLevels)[number];
  readonly benchmarksDir: string;
  readonly duckdbMemoryLimit: string;
  readonly mcpAllowedOrigins: readonly string[];
  readonly mcpAllowedHosts: readonly string[];
  readonly mcpRateLimitPerMin: number;
  /** Answer plain tools/call requests without a per-request SDK transport (same bytes on the wire). */
  readonly mcpFastPath: boolean;
}

export class ConfigError extends Error {}

function list(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** Validates the environment; the error lists every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const res = envSchema.safeParse(env);
  if (!res.success) {
    const lines = res.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = res.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    baseUrl: e.BASE_URL ?? `http://localhost:${e.PORT}`,
    siteName: e.SITE_NAME,
    logLevel: e.LOG_LEVEL,
    benchmarksDir: e.BENCHMARKS_DIR,
    duckdbMemoryLimit: e.DUCKDB_MEMORY_LIMIT,
    mcpAllowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
    mcpAllowedHosts: list(e.MCP_ALLOWED_HOSTS),
    mcpRateLimitPerMin: e.MCP_RATE_LIMIT_PER_MIN,
    mcpFastPath: e.MCP_FAST_PATH === 'true',
  };
}

/** A config for tests and tools, without reading the environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), baseUrl: 'http://localhost:8080', ...overrides };
}
