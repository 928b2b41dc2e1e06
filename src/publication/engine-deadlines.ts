/**
 * How long a replica waits on its engine (issue 27 rule 4). The engine's client retries a read for
 * up to ~42 s (10 s timeout × 4 attempts, with back-off); a request must not wait that long, and
 * a replica must turn degraded within one poll of a hung engine.
 */

/** Each read of a poll: the marker read (the liveness check) and each moved benchmark's bounds. */
export const POLL_DEADLINE_MS = 3_000;

/**
 * The origin check a replica runs in the first poll its engine answers: a few reads of the markers'
 * window (core/family.ts), given longer than a poll's read since the engine just proved it answers.
 */
export const ORIGIN_CHECK_DEADLINE_MS = 10_000;

/** Any engine read a view makes, retries included. */
export const VIEW_READ_DEADLINE_MS = 3_000;

/**
 * How long /healthz waits for a replica's first poll, the one answer that waits for the engine
 * (a replica's first log lines wait as long): the replica is ready before that poll ends (frozen
 * days from SNAPSHOT_DIR), and a probe then reads "ok" or "degraded" rather than a state the poll
 * is about to change. Bounded as start-up once waited for that poll.
 */
export const FIRST_POLL_WAIT_MS = 5_000;
