/**
 * Polls `check` every 50 ms until it holds: for an event with no line or promise of its own (a
 * counter moving, a metric on /metrics, a file appearing). `ms` is an outer bound against a hang,
 * never a budget; `what` names the event in the failure.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
