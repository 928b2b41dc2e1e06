import type { Context, Hono } from 'hono';
import { parseDay } from '../core/dates.ts';
import { etagOf } from '../core/hash.ts';
import {
  DATASET_CONTENT_TYPES,
  DATASET_EXTENSIONS,
  type DatasetExtension,
} from '../publication/dataset-files.ts';
import { closedBefore } from '../publication/day-freezer.ts';
import type { Publication } from '../publication/publication.ts';
import { JSON_TYPE } from './answers.ts';
import { datasetFileRoute, datasetManifestRoute, datasetRoute } from './data-declarations.ts';
import { FOREVER, type HotSource } from './hot-path.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, openRoute } from './route-kit.ts';

const encoder = new TextEncoder();

type FileName = { ok: true; day: string; ext: DatasetExtension } | { ok: false; response: Response };

/** `YYYY-MM-DD.parquet|csv`, split; a wrong extension is bad_format, a bad day bad_date (checkDay's words). */
function readFileName(c: Context, file: string): FileName {
  const m = /^(.{1,32})\.([a-z0-9]{1,16})$/.exec(file);
  const ext = m?.[2];
  if (!m || ext === undefined || !(DATASET_EXTENSIONS as readonly string[]).includes(ext)) {
    return {
      ok: false,
      response: sendError(
        c,
        400,
        'bad_format',
        `"${file.slice(0, 60)}" is not a dataset file: use YYYY-MM-DD.parquet or YYYY-MM-DD.csv.`,
      ),
    };
  }
  return { ok: true, day: m[1] as string, ext: ext as DatasetExtension };
}

/** GET /api/dataset (the days with samples), /api/dataset/{YYYY-MM-DD}.json (a day's manifest) and /api/dataset/{YYYY-MM-DD}.{parquet|csv}. */
export function registerDatasetRoutes(app: Hono, pub: Publication, clock: () => number): void {
  /**
   * The index changes with appends (today's row) and when a closed day is frozen (its grace period
   * after 00:00 UTC): an answer is replayable, and the index's bytes reusable, while neither moved.
   */
  const state = () => ({ version: pub.dataset.version, closed: closedBefore(clock()) });
  type State = ReturnType<typeof state>;
  const same = (a: State, b: State) => a.version === b.version && a.closed === b.closed;
  const unchanged = (at: State): HotSource => ({ valid: () => same(at, state()), group: null });
  let index: { at: State; body: Uint8Array<ArrayBuffer>; etag: string } | undefined;
  openRoute(app, datasetRoute, async (c) => {
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
        contentType: JSON_TYPE,
        cacheControl: CACHE.live,
      },
      unchanged(at),
    );
  });

  // Before the file route, whose `{file}` would also match `{date}.json` (the first route that
  // answers wins).
  openRoute(
    app,
    datasetManifestRoute,
    async (c, { params }) => {
      const r = await pub.dataset.manifest(params.date);
      if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
      if (r.kind !== 'ok') return sendError(c, 404, r.kind, r.message);
      return sendBytes(
        c,
        {
          body: r.body,
          etag: r.etag,
          contentType: JSON_TYPE,
          cacheControl: CACHE.immutable,
          headers: { 'x-snapshot-date': params.date },
        },
        FOREVER,
      );
    },
    {
      onInvalid: (c, v) => {
        if (v.kind !== 'path') return defaultInvalid(c, v, {});
        const day = v.value;
        const d = parseDay(day);
        return sendError(c, 400, 'bad_date', d.ok ? `${day} is not a valid date.` : d.message);
      },
    },
  );

  openRoute(
    app,
    datasetFileRoute,
    async (c, { params }) => {
      const name = readFileName(c, params.file);
      if (!name.ok) return name.response;
      const { day, ext } = name;
      const hot = unchanged(state());
      const r = await pub.dataset.file(day, ext);
      if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
      if (r.kind !== 'ok') return sendError(c, 404, r.kind, r.message);
      return sendBytes(
        c,
        {
          body: r.file.body,
          etag: r.file.etag,
          contentType: DATASET_CONTENT_TYPES[ext],
          // A closed day's files never change; today's grow with every cycle.
          cacheControl: r.file.frozen ? CACHE.immutable : CACHE.live,
          headers: {
            'content-disposition': `attachment; filename="citebench-${day}.${ext}"`,
            ...(r.file.frozen ? { 'x-snapshot-date': day } : {}),
          },
        },
        r.file.frozen ? FOREVER : hot,
      );
    },
    {
      // The name's parts explain themselves: extension (bad_format) first, then the day (bad_date).
      onInvalid: (c, v) => {
        if (v.kind !== 'path') return defaultInvalid(c, v, {});
        const name = readFileName(c, v.value);
        if (!name.ok) return name.response;
        const d = parseDay(name.day);
        return sendError(c, 400, 'bad_date', d.ok ? `${name.day} is not a valid date.` : d.message);
      },
    },
  );
}
