import { EngineUnavailableError, UnavailableError, UnknownBenchmarkError } from '../../publication/types.ts';
import { type ToolResult, toolError } from '../tool-def.ts';

/** Failures of the publication façade as tool errors: an agent can act on them, a 5xx it cannot. */
export function publicationFailure(e: unknown, validSlugs: readonly string[]): ToolResult {
  if (e instanceof UnknownBenchmarkError) {
    return toolError(
      'unknown_benchmark',
      `Unknown benchmark "${e.slug}". Valid slugs: ${validSlugs.join(', ')}.`,
    );
  }
  if (e instanceof EngineUnavailableError) {
    return toolError(
      'engine_unavailable',
      `The sample engine does not answer; retry in ${e.retryAfterS} s (frozen days are still served).`,
    );
  }
  if (e instanceof UnavailableError) {
    return toolError('unavailable', 'Benchmarks are temporarily unavailable; retry in a minute.');
  }
  return toolError('internal_error', 'The benchmark could not be computed.');
}
