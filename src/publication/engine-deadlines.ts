/**
 * How long a replica waits on its engine (issue 27 rule 4). The engine's client retries a read for
 * up to ~42 s (10 s timeout × 4 attempts, with back-off); a request must not wait that long, and
 * a replica must turn degraded within one poll of a hung engine.
 */

/** A poll's marker read (the liveness check) and the origin check it runs when the engine returns. */
export const POLL_DEADLINE_MS = 3_000;

/** Any engine read a view makes, retries included. */
export const VIEW_READ_DEADLINE_MS = 3_000;
