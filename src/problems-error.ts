/**
 * A start-up error that names several problems, each alone in `problems` (one line each when
 * start-up reports them) and all of them in its message.
 */
export class ProblemsError extends Error {
  // Private, so an error compares equal to one built from its message alone (tests do).
  readonly #problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.#problems = problems;
  }

  /** Each problem alone, as a line says it (`invalid configuration: PORT=abc is not a port …`). */
  get problems(): readonly string[] {
    return this.#problems;
  }
}
