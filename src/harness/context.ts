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

/** One provider's GraphQL endpoint, with what its documentation says a refused key looks like. */
export interface GraphqlApi {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The `errors[].extensions.code` values the provider documents for a refused key (adapter data,
   * cited where it is set). Empty when it documents none: then only an HTTP 401/403 (http.ts) is.
   */
  readonly authErrorCodes: readonly string[];
}

interface GraphqlError {
  readonly message: string;
  readonly code: string | undefined;
}

function readErrors(errors: readonly unknown[]): GraphqlError[] {
  return errors.map((e) => {
    if (typeof e !== 'object' || e === null) return { message: '', code: undefined };
    const { message, extensions } = e as { message?: unknown; extensions?: unknown };
    const code =
      typeof extensions === 'object' && extensions !== null
        ? (extensions as { code?: unknown }).code
        : undefined;
    return { message: String(message ?? ''), code: typeof code === 'string' ? code : undefined };
  });
}

/**
 * POSTs a GraphQL query. A non-empty `errors[]` is a failure, never an empty result (the reference
 * read Bitquery's errors as zero trades). It is `auth` only when an error carries one of the
 * provider's documented auth codes; every other GraphQL error (rate limits, an unknown token, a
 * resolver error) is the provider's failure, whatever words its message uses (blame in types.ts).
 */
export async function postGraphql<S extends z.ZodType>(
  ctx: AdapterContext,
  api: GraphqlApi,
  query: string,
  variables: Readonly<Record<string, unknown>>,
  dataSchema: S,
  what: string,
): Promise<Result<z.output<S>>> {
  const r = await requestJson(
    {
      url: api.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...api.headers },
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
    const errs = readErrors(errors);
    const msgs = errs
      .map((e) => (e.code ? `${e.message} [${e.code}]` : e.message))
      .filter(Boolean)
      .join('; ');
    const message = `${what}: GraphQL errors: ${msgs || 'unspecified'}`;
    const authCode = errs.find((e) => e.code !== undefined && api.authErrorCodes.includes(e.code))?.code;
    if (authCode !== undefined) return fail('auth', message, undefined, authCode);
    return fail('parse', message, undefined, errs.find((e) => e.code !== undefined)?.code);
  }
  return parseWith(dataSchema, data, what);
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
