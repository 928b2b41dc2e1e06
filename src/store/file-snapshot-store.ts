import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { etagOf } from '../core/hash.ts';
import type { SnapshotStore } from './sample-store.ts';

/** A day's index file, as path() names it: `citable:2026-11-19` encoded. */
const INDEX_FILE = /^citable%3A(\d{4}-\d{2}-\d{2})\.snapshot$/;

/**
 * Frozen day snapshots as files in a folder every API replica reads (a shared volume). A snapshot is
 * written to a temporary name and linked into place: link() never replaces an existing file, so a
 * day is written once, atomically, and a second writer racing the first keeps the first's bytes.
 */
export class FileSnapshotStore implements SnapshotStore {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    // Keys are our own (citable:2026-11-19, stat:slug:day…); encoded so no key can leave the folder.
    return join(this.dir, `${encodeURIComponent(key)}.snapshot`);
  }

  async getSnapshot(key: string): Promise<{ body: Uint8Array; etag: string; createdAt: number } | null> {
    const p = this.path(key);
    try {
      const [body, st] = await Promise.all([readFile(p), stat(p)]);
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      return { body: bytes, etag: etagOf(bytes), createdAt: st.mtimeMs };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** The first day with a frozen index file (`citable:YYYY-MM-DD`), or null (none, or no folder yet). */
  async firstFrozenDay(): Promise<string | null> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    let first: string | null = null;
    for (const name of names) {
      const day = INDEX_FILE.exec(name)?.[1];
      if (day !== undefined && (first === null || day < first)) first = day;
    }
    return first;
  }

  async putSnapshot(
    key: string,
    body: Uint8Array,
    _etag: string,
  ): Promise<{ body: Uint8Array; etag: string; createdAt: number }> {
    await mkdir(this.dir, { recursive: true });
    const final = this.path(key);
    const tmp = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, body, { flag: 'wx' });
    try {
      await link(tmp, final);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    const kept = await this.getSnapshot(key);
    if (!kept) throw new Error(`snapshot ${key} vanished after it was written`);
    return kept;
  }
}
