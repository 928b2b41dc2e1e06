import type { z } from 'zod';
import type { ProviderConfig } from './config.ts';
import { type HttpOptions, type HttpRequest, requestJson } from './http.ts';
import { fail, ok, type Result } from './types.ts';

/** What an adapter gets: its provider's settings and HTTP options bound to the cycle. */
export interface AdapterContext {
  readonly provider: ProviderConfig;
  readonly http: HttpOptions;
  readonly maxPages: number;
  /** Distinct hashes held per provider and cell; past it the count is a floor (capped). */
  readonly maxHashes: number;
}

/** zod parse into a Result; the message names the first bad field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): Result<z.output<S>> {
  const r = schema.safeParse(value);
  if (r.success) return ok(r.data);
  const i = r.error.issues[0];
  const at = i && i.path.length > 0 ? i.path.join('.') : '(root)';
  return fail('parse', `${what}: unexpected shape at ${at}: ${i?.message ?? 'invalid'}`);
}

export async function getJson<S extends z.ZodType>(
  ctx: AdapterContext,
  req: HttpRequest,
  schema: S,
  what: string,
): Promise<Result<z.output<S>>> {
  const r = await requestJson(req, ctx.http);
  if (!r.ok) return r;
  return parseWith(schema, r.value, what);
}

const AUTH_MESSAGE = /unauthori[sz]ed|forbidden|api key|apikey|token (is )?(invalid|expired)/i;

/**
 * POSTs a GraphQL query. A non-empty `errors[]` is a failure, never an empty result (the reference
 * read Bitquery's errors as zero trades): auth-looking messages are `auth`, others `parse`.
 */
export async function postGraphql<S extends z.ZodType>(
  ctx: AdapterContext,
  url: string,
  headers: Readonly<Record<string, string>>,
  query: string,
  variables: Readonly<Record<string, unknown>>,
  dataSchema: S,
  what: string,
): Promise<Result<z.output<S>>> {
  const r = await requestJson(
    {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    },
    ctx.http,
  );
  if (!r.ok) return r;
  const env = r.value;
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    return fail('parse', `${what}: GraphQL response is not an object`);
  }
  const { data, errors } = env as { data?: unknown; errors?: unknown };
  if (Array.isArray(errors) && errors.length > 0) {
    const msgs = errors
      .map((e) =>
        typeof e === 'object' && e !== null ? String((e as { message?: unknown }).message ?? '') : '',
      )
      .filter(Boolean)
      .join('; ');
    const message = `${what}: GraphQL errors: ${msgs || 'unspecified'}`;
    return fail(AUTH_MESSAGE.test(msgs) ? 'auth' : 'parse', message);
  }
  return parseWith(dataSchema, data, what);
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
