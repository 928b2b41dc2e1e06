import type { Hono } from 'hono';
import { dayStart } from '../core/dates.ts';
import { etagOf } from '../core/hash.ts';
import { DATASET_CONTENT_TYPES, DATASET_EXTENSIONS, type DatasetExtension } from '../publication/dataset.ts';
import { FREEZE_GRACE_MS, type Publication } from '../publication/publication.ts';
import { FOREVER, type HotSource } from './hot-path.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';

/** The last day whose freeze is due (its start), as the publication counts it. */
const closedDay = (now: number) => dayStart(now - FREEZE_GRACE_MS);

const encoder = new TextEncoder();

/** GET /api/dataset (the days with samples) and GET /api/dataset/{YYYY-MM-DD}.{parquet|csv}. */
export function registerDatasetRoutes(app: Hono, pub: Publication, clock: () => number): void {
  /**
   * The index changes with appends (today's row) and when a closed day is frozen (its grace period
   * after 00:00 UTC): an answer is replayable, and the index's bytes reusable, while neither moved.
   */
  const state = () => ({ version: pub.dataset.version, closed: closedDay(clock()) });
  type State = ReturnType<typeof state>;
  const same = (a: State, b: State) => a.version === b.version && a.closed === b.closed;
  const unchanged = (at: State): HotSource => ({ valid: () => same(at, state()), group: null });
  let index: { at: State; body: Uint8Array<ArrayBuffer>; etag: string } | undefined;
  app.get('/api/dataset', async (c) => {
    const at = state();
    if (!index || !same(index.at, at)) {
      const body = encoder.encode(JSON.stringify(await pub.dataset.index()));
      index = { at, body, etag: etagOf(body) };
    }
    return sendBytes(
      c,
      {
        body: index.body,
        etag: index.etag,
        contentType: 'application/json; charset=utf-8',
        cacheControl: CACHE.live,
      },
      unchanged(at),
    );
  });

  app.get('/api/dataset/:file', async (c) => {
    const file = c.req.param('file');
    const m = /^(.{1,32})\.([a-z0-9]{1,16})$/.exec(file);
    const ext = m?.[2];
    if (!m || ext === undefined || !(DATASET_EXTENSIONS as readonly string[]).includes(ext)) {
      return sendError(
        c,
        400,
        'bad_format',
        `"${file.slice(0, 60)}" is not a dataset file: use YYYY-MM-DD.parquet or YYYY-MM-DD.csv.`,
      );
    }
    const day = m[1] as string;
    const hot = unchanged(state());
    const r = await pub.dataset.file(day, ext as DatasetExtension);
    if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
    if (r.kind !== 'ok') return sendError(c, 404, r.kind, r.message);
    return sendBytes(
      c,
      {
        body: r.file.body,
        etag: r.file.etag,
        contentType: DATASET_CONTENT_TYPES[ext as DatasetExtension],
        // A closed day's files never change; today's grow with every cycle.
        cacheControl: r.file.frozen ? CACHE.immutable : CACHE.live,
        headers: {
          'content-disposition': `attachment; filename="citebench-${day}.${ext}"`,
          ...(r.file.frozen ? { 'x-snapshot-date': day } : {}),
        },
      },
      r.file.frozen ? FOREVER : hot,
    );
  });
}
