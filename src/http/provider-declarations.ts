import { createRoute, z } from '@hono/zod-openapi';
import { providerListingSchema, providerProfileSchema } from '../core/api-schemas.ts';
import { dateQuery, errorResponse, jsonResponse, slugPath, withCommon } from './route-docs.ts';

/** The provider profiles, declared once (handlers: src/http/provider-routes.ts). */

export const providersRoute = createRoute({
  method: 'get',
  path: '/api/providers',
  operationId: 'list_providers',
  summary: 'Every catalogue provider',
  responses: withCommon({
    200: jsonResponse(
      'Each provider, with how many benchmarks list it and its profile.',
      providerListingSchema,
    ),
  }),
});

export const providerRoute = createRoute({
  method: 'get',
  path: '/api/providers/{slug}',
  operationId: 'get_provider',
  summary: 'One provider on every benchmark listing it',
  request: {
    params: z.object({ slug: slugPath }),
    query: z.object({
      date: dateQuery(
        "A closed UTC day: the profile built from the Stats frozen with that day's snapshot, byte-identical forever.",
      ),
    }),
  },
  responses: withCommon({
    200: jsonResponse(
      "Rank, value, interval, success rate and sample size per benchmark, from its unfiltered Stat, with the provider's row 7 days earlier as frozen.",
      providerProfileSchema,
    ),
    400: errorResponse('Malformed slug (bad_slug), a repeated or over-long query parameter, or a bad date.'),
    404: errorResponse('Unknown provider (unknown_provider), or a day without a frozen snapshot.'),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day (or the day 7 days before it) past its 10-minute grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});
