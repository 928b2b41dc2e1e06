import { createRoute, z } from '@hono/zod-openapi';
import { datasetIndexSchema, datasetManifestSchema, seriesSchema } from '../core/api-schemas.ts';
import { CHART_RANGES, DEFAULT_CHART_RANGE } from '../core/history-svg.ts';
import { SERIES_RANGES } from '../core/series.ts';
import { parseSparklineParams, SPARKLINE_LIMITS } from '../core/sparkline-svg.ts';
import { DATASET_CONTENT_TYPES } from '../publication/dataset-files.ts';
import {
  dateQuery,
  dimensionQueries,
  errorResponse,
  jsonResponse,
  type StringSchema,
  slugPath,
  textResponse,
  withCommon,
} from './route-docs.ts';

/** Series, the daily dataset and the images, each declared once (see src/http/api-declarations.ts). */

/** Every provider of a benchmark fits (eight slugs are ~80 characters, over the usual 64). */
const MAX_PROVIDERS_PARAM = 512;

export const seriesRoute = createRoute({
  method: 'get',
  path: '/api/series/{slug}',
  operationId: 'get_series',
  summary: "Each provider's value over time, as the Stat published it",
  request: {
    params: z.object({ slug: slugPath }),
    query: z.object({
      range: z
        .enum(SERIES_RANGES)
        .default('24h')
        .openapi({
          param: {
            description: 'Grid: 24h every 20 min (73 points), 7d every 2 h, 30d every 6 h, 90d every day.',
          },
        }),
      ...dimensionQueries(),
      providers: z
        .string()
        .max(MAX_PROVIDERS_PARAM)
        .optional()
        .openapi({
          param: {
            description: 'Comma-separated provider slugs to return (default: every provider of the view).',
          },
        }),
    }),
  },
  responses: withCommon({
    200: jsonResponse(
      'Index-aligned timestamps and values; null where the Stat had no value at that instant.',
      seriesSchema,
    ),
    400: errorResponse('Malformed slug, unknown range, empty provider list, or a repeated parameter.'),
    404: errorResponse('Unknown slug, dimension value or provider.'),
  }),
});

export const datasetRoute = createRoute({
  method: 'get',
  path: '/api/dataset',
  operationId: 'list_dataset_days',
  summary: 'The daily open dataset: UTC days with samples',
  responses: withCommon({
    200: jsonResponse('Days with their row counts, file URLs and SHA-256.', datasetIndexSchema),
  }),
});

export const datasetManifestRoute = createRoute({
  method: 'get',
  path: '/api/dataset/{date}.json',
  operationId: 'get_dataset_manifest',
  summary: "A closed day's dataset manifest: files, hashes, licences and provenance",
  request: {
    params: z.object({
      date: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/)
        .openapi({ param: { description: 'A closed UTC day, YYYY-MM-DD.' } }),
    }),
  },
  responses: withCommon({
    200: jsonResponse(
      "Frozen with the day's files, byte-identical forever: the SHA-256 of each file, data CC-BY-4.0 and code MIT, and the day's provenance (the same object as /api/citable/{date}'s site.provenance and the Parquet file's metadata; null for days frozen before it was published).",
      datasetManifestSchema,
    ),
    400: errorResponse('Malformed or future date.'),
    404: errorResponse('A day without samples, today (not frozen yet), or a closed day not frozen yet.'),
  }),
});

const datasetTypes = Object.values(DATASET_CONTENT_TYPES).map((t) => t.split(';')[0] as string);

export const datasetFileRoute = createRoute({
  method: 'get',
  path: '/api/dataset/{file}',
  summary: 'Every published sample of one UTC day (Parquet or CSV)',
  request: {
    params: z.object({
      file: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}\.(parquet|csv)$/)
        .openapi({
          param: {
            description:
              'YYYY-MM-DD.parquet or YYYY-MM-DD.csv. Columns: metric, one per label, timestamp (UTC), value; one row per sample, sorted. A closed day is byte-identical forever.',
          },
        }),
    }),
  },
  responses: withCommon({
    200: {
      description: 'The file (immutable for a closed day, live for today).',
      content: Object.fromEntries(
        datasetTypes.map((t) => [t, { schema: { type: 'string', contentMediaType: t } as StringSchema }]),
      ),
    },
    400: errorResponse('Malformed or future date, or an extension other than parquet and csv.'),
    404: errorResponse('A day without samples, or a closed day not frozen yet.'),
  }),
});

const notFound = errorResponse('Unknown benchmark or dimension value.');
const datedImage = () =>
  dateQuery("A closed UTC day: the image of that day's frozen Stat (unfiltered; immutable).");

export const ogRoute = createRoute({
  method: 'get',
  path: '/api/og/{slug}',
  summary: 'Watermarked 1200x630 PNG of the current value and sparkline',
  request: {
    params: z.object({ slug: slugPath }),
    // The same filters as /api/stat: a filtered Stat's ogImage is the image of that view.
    query: z.object({ ...dimensionQueries(), date: datedImage() }),
  },
  responses: withCommon({
    200: textResponse('PNG image.', ['image/png'], { contentMediaType: 'image/png' }),
    400: errorResponse('Malformed slug.'),
    404: notFound,
  }),
});

/**
 * w and h as the handler has always read them: any number, floored and clamped to the limits (an
 * embed keeps working at the edges). The schema parses like parseSparklineParams, so the document
 * says what is accepted instead of a minimum and maximum the server never enforced.
 */
const sparklineSize = (name: 'w' | 'h', what: string) => {
  const lim = SPARKLINE_LIMITS[name];
  return z
    .preprocess((v) => {
      if (typeof v !== 'string') return v;
      const r = parseSparklineParams({ [name]: v });
      return r.ok ? r[name] : v;
    }, z.number())
    .default(lim.default)
    .openapi({
      param: {
        description: `${what} in pixels: any number, floored and clamped to ${lim.min}–${lim.max}.`,
      },
    });
};

export const sparklineRoute = createRoute({
  method: 'get',
  path: '/api/sparkline/{slug}',
  summary: "Standalone SVG of the current leader's 24 h series",
  request: {
    params: z.object({ slug: slugPath }),
    query: z.object({
      ...dimensionQueries(),
      w: sparklineSize('w', 'Width'),
      h: sparklineSize('h', 'Height'),
      theme: z.enum(['light', 'dark']).default('light'),
      date: datedImage(),
    }),
  },
  responses: withCommon({
    200: textResponse('SVG image. Up means better: the axis is inverted for lower-is-better metrics.', [
      'image/svg+xml',
    ]),
    400: errorResponse('Malformed slug, non-numeric size or unknown theme.'),
    404: notFound,
  }),
});

export const badgeRoute = createRoute({
  method: 'get',
  path: '/api/badge/{slug}/{provider}',
  summary: "A provider's badge on a benchmark: its value and rank, as an SVG to embed",
  request: { params: z.object({ slug: slugPath, provider: slugPath }) },
  responses: withCommon({
    200: textResponse(
      "SVG badge: the benchmark, the provider's p50 (or count) in the benchmark unit and its rank (unranked when it has none), and (simulated) for simulated data.",
      ['image/svg+xml'],
    ),
    400: errorResponse('Malformed slug.'),
    404: errorResponse('Unknown benchmark, or a provider the benchmark does not list.'),
    503: errorResponse('Benchmarks temporarily unavailable.'),
  }),
});

export const chartRoute = createRoute({
  method: 'get',
  path: '/api/chart/{slug}',
  summary: "SVG history chart of every ranked provider of a view (the benchmark page's)",
  request: {
    params: z.object({ slug: slugPath }),
    query: z.object({
      range: z
        .enum(CHART_RANGES)
        .default(DEFAULT_CHART_RANGE)
        .openapi({
          param: {
            description:
              'The /api/series grid drawn: 7d every 2 h (85 points, ending at the evaluation time), 30d every 6 h, 90d every day.',
          },
        }),
      ...dimensionQueries(),
    }),
  },
  responses: withCommon({
    200: textResponse(
      "SVG image: one line per provider ranked in the Stat of the same filters, in the provider's stable colour, broken where /api/series has null; UTC dates, the unit, and which way is better.",
      ['image/svg+xml'],
    ),
    400: errorResponse("Malformed slug, unknown range (24h is the sparkline's), or a repeated parameter."),
    404: errorResponse('Unknown slug or dimension value.'),
  }),
});
