/**
 * Resolves in the event loop's next check phase, so the sockets that became ready meanwhile (cached
 * reads) are served first. A resolved promise would not do: its continuation runs as a microtask,
 * before any I/O.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A long stretch of work on the event loop that gives it back every `everyMs`: call `pass()`
 * between steps; it waits a turn only once the stretch since the last turn is that long.
 */
export class LoopSlice {
  private since = performance.now();

  constructor(private readonly everyMs: number) {}

  async pass(): Promise<void> {
    if (performance.now() - this.since <= this.everyMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}
