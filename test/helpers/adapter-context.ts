import type { HarnessProvider } from '../../src/harness/config.ts';
import type { AdapterContext } from '../../src/harness/context.ts';

/**
 * An adapter's context for a listing test against a loopback server: no retries, 20 pages. The
 * timeouts are outer bounds (a loopback answer takes ~1 ms; no test here is about a timeout), so a
 * busy machine never turns an answer into a failure.
 */
export function listingContext(
  slug: HarnessProvider,
  baseUrl: string,
  apiKey?: string,
  maxBodyBytes = 1 << 20,
): AdapterContext {
  return {
    provider: {
      slug,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: 30_000,
      concurrency: 2,
      configured: true,
    },
    maxPages: 20,
    maxHashes: 1_000_000,
    http: { timeoutMs: 30_000, maxBodyBytes, maxRetries: 0, retryMaxWaitMs: 0 },
  };
}
