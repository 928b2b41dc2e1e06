import { z } from 'zod';
import {
  auditSchema,
  citableIndexSchema,
  compareSchema,
  datasetIndexSchema,
  errorSchema,
  featuredSchema,
  freshnessSchema,
  seriesSchema,
  statSchema,
} from '../core/api-schemas.ts';
import { CITE_CONTENT_TYPES, CITE_FORMATS } from '../core/citations.ts';
import { SERIES_RANGES } from '../core/series.ts';
import { DATASET_CONTENT_TYPES } from '../publication/dataset.ts';

type Json = Record<string, unknown>;

const ref = (id: string): Json => ({ $ref: `#/components/schemas/${id}` });

function jsonResponse(description: string, schemaId: string): Json {
  return { description, content: { 'application/json': { schema: ref(schemaId) } } };
}

const errorResponse = (description: string): Json => jsonResponse(description, 'Error');

/**
 * Answers every GET route can give besides its own: 304 to a matching If-None-Match, 405 to other
 * methods, 503 while the store cannot be read.
 */
const COMMON_RESPONSES: Json = {
  304: { description: 'Not modified: If-None-Match matched the ETag (no body).' },
  405: errorResponse('Method not allowed: use GET or HEAD.'),
  413: errorResponse('A request body (GET takes none) over 16 KiB, or a chunked one.'),
  431: { description: 'Request headers over 16 KiB or over 100 headers (no body).' },
  503: errorResponse(
    'Temporarily unavailable, with Retry-After: the store cannot be read, or expensive work (images, PromQL) is shed while the server is saturated (render_busy, busy).',
  ),
};

function op(operationId: string | undefined, summary: string, extra: Json): Json {
  const responses = { ...COMMON_RESPONSES, ...(extra.responses as Json | undefined) };
  return { get: { ...(operationId ? { operationId } : {}), summary, ...extra, responses } };
}

const dateQuery = (what: string): Json => ({
  name: 'date',
  in: 'query',
  required: false,
  schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  description: what,
});

const slugParam: Json = {
  name: 'slug',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,79}$' },
};

function dimParam(name: string): Json {
  return {
    name,
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: `Restrict the view to this ${name} value (only when the benchmark declares the dimension).`,
  };
}

function components(): Json {
  // Registering by reference keeps every response schema in the document generated from zod.
  void [
    auditSchema,
    citableIndexSchema,
    compareSchema,
    errorSchema,
    featuredSchema,
    freshnessSchema,
    statSchema,
    seriesSchema,
    datasetIndexSchema,
  ];
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
    target: 'draft-2020-12',
  }) as { schemas: Record<string, Json> };
  const out: Record<string, Json> = {};
  for (const [id, s] of Object.entries(schemas)) {
    const { $schema, $id, ...rest } = s;
    void $schema;
    void $id;
    out[id] = rest;
  }
  return out;
}

/** OpenAPI 3.1.0 for every path of the spec, generated from the zod schemas that shape responses. */
export function buildOpenApi(baseUrl: string, siteName: string): Json {
  const notFound = errorResponse('Unknown benchmark or dimension value.');
  return {
    openapi: '3.1.0',
    info: {
      title: `${siteName} API`,
      version: '1.1.0',
      description: 'Open, reproducible, citable benchmarks of crypto infrastructure. Data is CC-BY-4.0.',
      license: { name: 'CC-BY-4.0 (data), MIT (code)', identifier: 'CC-BY-4.0' },
    },
    servers: [{ url: baseUrl }],
    paths: {
      '/api/citable': op('list_benchmarks', 'Flat index of every benchmark', {
        responses: {
          200: jsonResponse('The live index.', 'CitableIndex'),
          503: errorResponse('Benchmarks temporarily unavailable.'),
        },
      }),
      '/api/citable/{date}': op('list_benchmarks_snapshot', 'Immutable per-day snapshot of the index', {
        parameters: [
          {
            name: 'date',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
            description: 'UTC calendar day, YYYY-MM-DD.',
          },
        ],
        responses: {
          200: jsonResponse(
            'The index frozen at the end of that day (today: the live index).',
            'CitableIndex',
          ),
          400: errorResponse('Malformed, impossible, future, or before the first snapshot.'),
          404: errorResponse('A closed day not frozen yet (days are frozen 10 minutes after 00:00 UTC).'),
        },
      }),
      '/api/stat/{slug}': op('get_benchmark', 'One benchmark, optionally narrowed by dimension', {
        parameters: [
          slugParam,
          dimParam('chain'),
          dimParam('region'),
          dimParam('kind'),
          dimParam('venue'),
          dateQuery(
            "A closed UTC day: the unfiltered Stat frozen with that day's snapshot, byte-identical forever.",
          ),
        ],
        responses: {
          200: jsonResponse('The full benchmark record.', 'Stat'),
          400: errorResponse(
            'Malformed slug, a repeated or over-long query parameter, a bad date, or a date with filters.',
          ),
          404: errorResponse('Unknown slug or dimension value, or a day without a frozen snapshot.'),
          503: errorResponse('Benchmarks temporarily unavailable.'),
        },
      }),
      '/api/compare/{a}/{b}': op('compare_providers', 'Two providers head to head', {
        parameters: ['a', 'b'].map((name) => ({
          name,
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,79}$' },
        })),
        responses: {
          200: jsonResponse('Every benchmark where both appear.', 'Compare'),
          400: errorResponse('Malformed slugs, or a and b identical.'),
          404: errorResponse('Unknown provider, or no shared benchmark.'),
        },
      }),
      '/api/audit/{slug}/{provider}': op('audit_provider', "The raw measurements behind a provider's row", {
        parameters: [
          slugParam,
          {
            name: 'provider',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,79}$' },
          },
          dateQuery('The measurements as they stood at the end of that UTC day (links in a day snapshot).'),
          {
            name: 'window',
            in: 'query',
            required: false,
            description:
              "Window-mode benchmarks: every (cycle, cell) of the Stat's window (entries), so the ranking row can be recomputed from one answer.",
            schema: { type: 'string', enum: ['24h'] },
          },
          dimParam('chain'),
          dimParam('region'),
          dimParam('kind'),
          dimParam('venue'),
        ],
        responses: {
          200: jsonResponse(
            'Networks counted, per-token counts of the latest cycle, or (window=24h) every cycle and cell of the window.',
            'Audit',
          ),
          400: errorResponse(
            "Malformed slug, a window other than the Stat's or on a latest-mode benchmark, or a dimension filter without window.",
          ),
          404: errorResponse(
            'Unknown benchmark or dimension value, or a provider the benchmark does not measure.',
          ),
          503: errorResponse('Benchmarks temporarily unavailable.'),
        },
      }),
      '/api/og/{slug}': op(undefined, 'Watermarked 1200x630 PNG of the current value and sparkline', {
        // The same filters as /api/stat: a filtered Stat's ogImage is the image of that view.
        parameters: [slugParam, dimParam('chain'), dimParam('region'), dimParam('kind'), dimParam('venue')],
        responses: {
          200: {
            description: 'PNG image.',
            content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } },
          },
          400: errorResponse('Malformed slug.'),
          404: notFound,
        },
      }),
      '/api/sparkline/{slug}': op(undefined, "Standalone SVG of the current leader's 24 h series", {
        parameters: [
          slugParam,
          dimParam('chain'),
          dimParam('region'),
          dimParam('kind'),
          dimParam('venue'),
          { name: 'w', in: 'query', schema: { type: 'integer', minimum: 40, maximum: 1200, default: 240 } },
          { name: 'h', in: 'query', schema: { type: 'integer', minimum: 20, maximum: 400, default: 60 } },
          {
            name: 'theme',
            in: 'query',
            schema: { type: 'string', enum: ['light', 'dark'], default: 'light' },
          },
        ],
        responses: {
          200: {
            description: 'SVG image. Up means better: the axis is inverted for lower-is-better metrics.',
            content: { 'image/svg+xml': { schema: { type: 'string' } } },
          },
          400: errorResponse('Malformed slug, non-numeric size or unknown theme.'),
          404: notFound,
        },
      }),
      '/api/cite/{slug}/{format}': op(undefined, 'Citation file', {
        parameters: [
          slugParam,
          { name: 'format', in: 'path', required: true, schema: { type: 'string', enum: [...CITE_FORMATS] } },
          dateQuery("A closed UTC day: the citation of that day's frozen value (immutable)."),
        ],
        responses: {
          200: {
            description: 'Citation record.',
            content: Object.fromEntries(
              [...new Set(Object.values(CITE_CONTENT_TYPES))].map((t) => [
                t.split(';')[0],
                { schema: { type: 'string' } },
              ]),
            ),
          },
          400: errorResponse('Malformed slug, unknown format or bad date.'),
          404: errorResponse('Unknown slug, or a day without a frozen snapshot.'),
        },
      }),
      '/api/llm-context': op(undefined, 'Every benchmark as one Markdown document', {
        responses: {
          200: { description: 'Markdown.', content: { 'text/markdown': { schema: { type: 'string' } } } },
          503: errorResponse('Benchmarks temporarily unavailable.'),
        },
      }),
      '/api/freshness': op('get_freshness', 'Newest sample time and status per benchmark', {
        responses: {
          200: jsonResponse(
            'Epoch milliseconds per slug with data, and stale/draft status for every slug.',
            'Freshness',
          ),
        },
      }),
      '/api/series/{slug}': op('get_series', "Each provider's value over time, as the Stat published it", {
        parameters: [
          slugParam,
          {
            name: 'range',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: [...SERIES_RANGES], default: '24h' },
            description: 'Grid: 24h every 20 min (73 points), 7d every 2 h, 30d every 6 h, 90d every day.',
          },
          dimParam('chain'),
          dimParam('region'),
          dimParam('kind'),
          dimParam('venue'),
          {
            name: 'providers',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 512 },
            description: 'Comma-separated provider slugs to return (default: every provider of the view).',
          },
        ],
        responses: {
          200: jsonResponse(
            'Index-aligned timestamps and values; null where the Stat had no value at that instant.',
            'Series',
          ),
          400: errorResponse('Malformed slug, unknown range, empty provider list, or a repeated parameter.'),
          404: errorResponse('Unknown slug, dimension value or provider.'),
        },
      }),
      '/api/dataset': op('list_dataset_days', 'The daily open dataset: UTC days with samples', {
        responses: {
          200: jsonResponse('Days with their row counts, file URLs and SHA-256.', 'DatasetIndex'),
        },
      }),
      '/api/dataset/{file}': op(undefined, 'Every published sample of one UTC day (Parquet or CSV)', {
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}\\.(parquet|csv)$' },
            description:
              'YYYY-MM-DD.parquet or YYYY-MM-DD.csv. Columns: metric, one per label, timestamp (UTC), value; one row per sample, sorted. A closed day is byte-identical forever.',
          },
        ],
        responses: {
          200: {
            description: 'The file (immutable for a closed day, live for today).',
            content: Object.fromEntries(
              Object.values(DATASET_CONTENT_TYPES).map((t) => [
                t.split(';')[0],
                { schema: { type: 'string', contentMediaType: t.split(';')[0] } },
              ]),
            ),
          },
          400: errorResponse('Malformed or future date, or an extension other than parquet and csv.'),
          404: errorResponse('A day without samples, or a closed day not frozen yet.'),
        },
      }),
      '/api/search/featured': op('get_featured_leaders', 'Live leaders and trending benchmarks', {
        responses: { 200: jsonResponse('Compact cards.', 'Featured') },
      }),
      '/api/mcp/mcp': {
        post: {
          operationId: 'mcp',
          summary:
            'MCP server (Streamable HTTP, POST only): list_benchmarks, get_benchmark, compare_providers, query_prom, get_series',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { type: 'object', description: 'One JSON-RPC 2.0 message.' } },
            },
          },
          responses: {
            200: {
              description: 'JSON-RPC response.',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            202: { description: 'Notification accepted.' },
            400: { description: 'Batch, bad JSON-RPC or unsupported protocol version.' },
            403: { description: 'Origin or Host not allowed (DNS-rebinding protection).' },
            413: { description: 'Body over 64 KiB.' },
            429: { description: 'Rate limited; see Retry-After.' },
          },
        },
      },
    },
    components: { schemas: components() },
  };
}
