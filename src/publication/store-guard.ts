import { UnavailableError, UnknownBenchmarkError } from './types.ts';

/** Store failures surface as UnavailableError, which the front doors turn into 503. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof UnknownBenchmarkError) throw e;
    throw new UnavailableError(`benchmarks are temporarily unavailable: ${(e as Error).message}`);
  }
}
