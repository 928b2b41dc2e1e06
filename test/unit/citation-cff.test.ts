import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * CITATION.cff at the repository root (issue 25), checked offline against the CFF 1.2.0 JSON
 * schema vendored in test/fixtures/cff-1.2.0.schema.json: the object `schema` of the npm package
 * cffjs 0.0.2 (dist/schema.js), written out as JSON. The schema alone accepts a licence list (it
 * means "either") or no version, so what issue 25 asks beyond it is checked field by field.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

type Cff = Record<string, unknown> & {
  authors?: { name?: string }[];
  references?: Record<string, unknown>[];
};

function validator() {
  const schema = JSON.parse(read('test/fixtures/cff-1.2.0.schema.json')) as Record<string, unknown>;
  expect(schema.$id).toBe('https://citation-file-format.github.io/1.2.0/schema.json');
  const ajv = new Ajv({ allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

describe('CITATION.cff', () => {
  const cff = parse(read('CITATION.cff')) as Cff;
  const validate = validator();

  it('is valid CFF 1.2.0', () => {
    expect(validate(cff), JSON.stringify(validate.errors)).toBe(true);
    // The schema does refuse what is not CFF: a reference type CFF does not define.
    const bad = { ...cff, references: [{ ...cff.references?.[0], type: 'dataset' }] };
    expect(validate(bad)).toBe(false);
  });

  it("is software under MIT, by the entity of LICENSE, at package.json's version", () => {
    const pkg = JSON.parse(read('package.json')) as { version: string; license: string };
    expect(cff['cff-version']).toBe('1.2.0');
    expect(cff.type).toBe('software');
    expect(cff.version).toBe(pkg.version);
    // One licence, not a list: a CFF list means "either", and the data's licence is not the code's.
    expect(cff.license).toBe('MIT');
    expect(pkg.license).toBe('MIT');
    expect(cff.authors).toEqual([{ name: 'Citebench contributors' }]);
    expect(read('LICENSE')).toMatch(/^Copyright \(c\) \d{4} Citebench contributors$/m);
  });

  it('references the published dataset as data under CC-BY-4.0', () => {
    const data = (cff.references ?? []).filter((r) => r.type === 'data');
    expect(data).toHaveLength(1);
    expect(data[0]?.license).toBe('CC-BY-4.0');
    expect(data[0]?.authors).toEqual([{ name: 'Citebench contributors' }]);
  });
});
