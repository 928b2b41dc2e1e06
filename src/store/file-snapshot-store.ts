import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { etagOf } from '../core/hash.ts';
import type { SnapshotStore } from './sample-store.ts';

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
