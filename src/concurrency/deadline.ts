/** Resolves true when `p` settles (either way) within `ms`, false when the time runs out first. */
export function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      () => resolve(true),
      () => resolve(true),
    ).finally(() => clearTimeout(t));
  });
}

/** A promise that did not settle within its deadline. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/** `p`'s value, or a rejection when it has not settled within `ms` (`p` itself cannot be cancelled; it is left). */
export async function withinDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what} did not answer within ${ms} ms`)), ms);
  });
  p.catch(() => undefined);
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
