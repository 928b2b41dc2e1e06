import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll } from 'vitest';
import { type Running, startServer } from './server.ts';

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: unknown;
};

export interface ResponseValidator {
  /** Throws with the validation errors when the body does not match the documented schema. */
  check(pathTemplate: string, method: string, res: Response, body: string): void;
}

/** application/json or a structured-syntax +json type (RFC 6839), e.g. application/vnd.citationstyles.csl+json. */
export function isJsonLike(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Validates responses against the served OpenAPI document (the document itself is validated first). */
export async function openApiValidator(doc: unknown): Promise<ResponseValidator> {
  await SwaggerParser.validate(structuredClone(doc) as never);
  const d = doc as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const id = 'https://citebench.test/openapi.json';
  ajv.addSchema({ $id: id, components: d.components });
  return {
    check(pathTemplate, method, res, body) {
      const op = d.paths[pathTemplate]?.[method];
      if (!op) throw new Error(`${method.toUpperCase()} ${pathTemplate} is not documented`);
      const documented = op.responses[String(res.status)];
      if (!documented) throw new Error(`${pathTemplate}: status ${res.status} is not documented`);
      const ct = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      if (!documented.content) return;
      const media = documented.content[ct];
      if (!media) throw new Error(`${pathTemplate} ${res.status}: content type ${ct} is not documented`);
      // Every JSON-like body is checked: application/json and any +json type (CSL-JSON).
      if (!isJsonLike(ct)) return;
      const schema = JSON.parse(
        JSON.stringify(media.schema).replaceAll('"#/components', `"${id}#/components`),
      );
      const validate = ajv.compile(schema);
      if (!validate(JSON.parse(body))) {
        throw new Error(`${pathTemplate} ${res.status}: ${ajv.errorsText(validate.errors)}`);
      }
    },
  };
}

/**
 * A real server (in-memory store, fixed clock) for the tests of one describe block, with a
 * validator for its own OpenAPI document: started before them, closed after.
 */
export function serverWithApi(): { readonly srv: Running; readonly api: ResponseValidator } {
  const ctx: { srv?: Running; api?: ResponseValidator } = {};
  beforeAll(async () => {
    ctx.srv = await startServer();
    ctx.api = await openApiValidator(await (await ctx.srv.get('/api/openapi.json')).json());
  });
  afterAll(async () => {
    await ctx.srv?.close();
  });
  return {
    get srv() {
      if (!ctx.srv) throw new Error('server not started');
      return ctx.srv;
    },
    get api() {
      if (!ctx.api) throw new Error('validator not built');
      return ctx.api;
    },
  };
}
