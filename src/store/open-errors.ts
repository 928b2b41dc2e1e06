import { constants } from 'node:fs';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export type StoreOpenProblem =
  | 'missing'
  | 'not_a_directory'
  | 'read_only'
  | 'permission'
  | 'no_space'
  | 'locked'
  | 'newer_schema'
  | 'not_a_database'
  | 'unknown';

/**
 * Why the database could not be opened, as one line an operator can act on. Start-up prints the
 * message and exits non-zero; it never prints a stack trace, and no code path that raises it has
 * written to the database.
 */
export class StoreOpenError extends Error {
  constructor(
    readonly problem: StoreOpenProblem,
    message: string,
  ) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e
    ? String((e as { code: unknown }).code)
    : undefined;
}

function fromErrno(dir: string, e: unknown): StoreOpenError | null {
  switch (errno(e)) {
    case 'EROFS':
      return new StoreOpenError('read_only', `DATA_DIR ${dir} is on a read-only file system`);
    case 'EACCES':
    case 'EPERM':
      return new StoreOpenError('permission', `DATA_DIR ${dir} is not writable by this user`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new StoreOpenError('no_space', `DATA_DIR ${dir} has no space left on its device`);
    case 'ENOTDIR':
      return new StoreOpenError('not_a_directory', `DATA_DIR ${dir} is not a directory`);
    default:
      return null;
  }
}

/**
 * Bytes the start-up probe writes: enough that a full disk fails here (a 0-byte file can still be
 * created on one) rather than half-way through DuckDB's first checkpoint.
 */
const PROBE_BYTES = 256 * 1024;

/**
 * Makes sure DATA_DIR can hold the database before DuckDB touches it. A missing DATA_DIR is
 * created when its parent exists (`./data` on a fresh clone); a missing parent is more likely a
 * typo than a wish for a new tree, so that is refused.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  const abs = resolve(dir);
  try {
    const s = await stat(abs);
    if (!s.isDirectory()) throw new StoreOpenError('not_a_directory', `DATA_DIR ${dir} is not a directory`);
  } catch (e) {
    if (e instanceof StoreOpenError) throw e;
    if (errno(e) !== 'ENOENT') throw fromErrno(dir, e) ?? e;
    try {
      await mkdir(abs);
    } catch (m) {
      if (errno(m) === 'ENOENT') {
        throw new StoreOpenError(
          'missing',
          `DATA_DIR ${dir} does not exist and neither does its parent ${dirname(abs)}`,
        );
      }
      throw fromErrno(dir, m) ?? m;
    }
  }
  const probe = resolve(abs, `.write-probe-${process.pid}`);
  try {
    const fh = await open(probe, constants.O_CREAT | constants.O_WRONLY | constants.O_TRUNC);
    try {
      const { bytesWritten } = await fh.write(Buffer.alloc(PROBE_BYTES));
      // A nearly full device takes part of the write and reports no error.
      if (bytesWritten < PROBE_BYTES) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw fromErrno(dir, e) ?? e;
  } finally {
    await unlink(probe).catch(() => undefined);
  }
}

/** Maps DuckDB's open-time errors (plain Errors with an "IO Error: …" message) to one clear line. */
export function classifyOpenError(path: string, e: unknown): StoreOpenError {
  if (e instanceof StoreOpenError) return e;
  const dir = dirname(path);
  const fromCode = fromErrno(dir, e);
  if (fromCode) return fromCode;
  const msg = e instanceof Error ? e.message : String(e);
  const lock = /Conflicting lock is held in (.*?) \(PID (\d+)\)/.exec(msg);
  if (lock || /Could not set lock/i.test(msg)) {
    const who = lock ? ` (PID ${lock[2]}, ${lock[1]})` : '';
    return new StoreOpenError(
      'locked',
      `the database in DATA_DIR ${dir} is already open in another process${who}; stop it or use another DATA_DIR`,
    );
  }
  if (/Read-only file system/i.test(msg)) {
    return new StoreOpenError('read_only', `DATA_DIR ${dir} is on a read-only file system`);
  }
  if (/No space left on device|Disk full/i.test(msg)) {
    return new StoreOpenError('no_space', `DATA_DIR ${dir} has no space left on its device`);
  }
  if (/Permission denied/i.test(msg)) {
    return new StoreOpenError('permission', `DATA_DIR ${dir} is not writable by this user`);
  }
  if (/not a valid DuckDB database file|database file .* (is corrupt|has been corrupted)/i.test(msg)) {
    return new StoreOpenError('not_a_database', `${path} exists but is not a DuckDB database; move it aside`);
  }
  const first = msg.split('\n')[0] ?? msg;
  return new StoreOpenError('unknown', `could not open the database ${path}: ${first}`);
}
