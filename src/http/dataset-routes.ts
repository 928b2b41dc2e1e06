import type { Hono } from 'hono';
import { etagOf } from '../core/hash.ts';
import { DATASET_CONTENT_TYPES, DATASET_EXTENSIONS, type DatasetExtension } from '../publication/dataset.ts';
import type { Publication } from '../publication/publication.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';

const encoder = new TextEncoder();

/** GET /api/dataset (the days with samples) and GET /api/dataset/{YYYY-MM-DD}.{parquet|csv}. */
export function registerDatasetRoutes(app: Hono, pub: Publication): void {
  app.get('/api/dataset', async (c) => {
    const body = encoder.encode(JSON.stringify(await pub.dataset.index()));
    return sendBytes(c, {
      body,
      etag: etagOf(body),
      contentType: 'application/json; charset=utf-8',
      cacheControl: CACHE.live,
    });
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
    const r = await pub.dataset.file(day, ext as DatasetExtension);
    if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
    if (r.kind !== 'ok') return sendError(c, 404, r.kind, r.message);
    return sendBytes(c, {
      body: r.file.body,
      etag: r.file.etag,
      contentType: DATASET_CONTENT_TYPES[ext as DatasetExtension],
      // A closed day's files never change; today's grow with every cycle.
      cacheControl: r.file.frozen ? CACHE.immutable : CACHE.live,
      headers: {
        'content-disposition': `attachment; filename="citebench-${day}.${ext}"`,
        ...(r.file.frozen ? { 'x-snapshot-date': day } : {}),
      },
    });
  });
}
