import { UnavailableError, UnknownBenchmarkError } from './types.ts';

/** Store failures surface as UnavailableError, which the front doors turn into 503. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    // Already ours (an engine the gate found down keeps its own code and Retry-After).
    if (e instanceof UnknownBenchmarkError || e instanceof UnavailableError) throw e;
    throw new UnavailableError(`benchmarks are temporarily unavailable: ${(e as Error).message}`);
  }
}
