import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  configurationSchema,
  legacyHubSchema,
  legacyWorkflowSchema,
  triggerSchema,
  type JsonSchema,
} from '../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function strictAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  return ajv;
}

const cases: [string, JsonSchema, string, string][] = [
  ['configuration', configurationSchema, 'configuration.schema.json', 'examples/configuration.yml'],
  ['trigger', triggerSchema, 'trigger.schema.json', 'examples/trigger.yml'],
  ['legacy hub file', legacyHubSchema, 'legacy-hub.schema.json', 'examples/bundle/.hub/hub.yml'],
  ['legacy workflow', legacyWorkflowSchema, 'legacy-workflow.schema.json', 'examples/bundle/.hub/workflows/review.yml'],
];

/** Every property has a description, its own or its $ref target's (as editors show it). */
function undescribed(schema: JsonSchema): string[] {
  const defs = (schema.$defs ?? {}) as Record<string, Record<string, unknown>>;
  const described = (value: Record<string, unknown>): boolean => {
    if (typeof value.description === 'string') return true;
    const ref = value.$ref;
    return typeof ref === 'string' && ref.startsWith('#/$defs/') && typeof defs[ref.slice(8)]?.description === 'string';
  };
  const out: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object') {
      for (const [key, value] of Object.entries(record.properties as Record<string, Record<string, unknown>>)) {
        if (!described(value)) out.push(`${path}/properties/${key}`);
      }
    }
    for (const [key, value] of Object.entries(record)) walk(value, `${path}/${key}`);
  };
  walk(schema, '');
  return out;
}

describe.each(cases)('the %s schema', (_name, schema, file, example) => {
  it('compiles under ajv strict mode and has an $id', () => {
    expect(schema.$id).toMatch(/^urn:hub:schema:/);
    expect(() => strictAjv().compile(schema)).not.toThrow();
  });

  it('is the published file', () => {
    expect(JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8'))).toEqual(schema);
  });

  it('accepts its example', () => {
    const validate = strictAjv().compile(schema);
    const ok = validate(parse(readFileSync(join(root, example), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('rejects unknown keys at the top level', () => {
    const validate = strictAjv().compile(schema);
    const data = { ...(parse(readFileSync(join(root, example), 'utf8')) as object), surprise: 1 };
    expect(validate(data)).toBe(false);
    expect(validate.errors?.map((e) => e.keyword)).toContain('additionalProperties');
  });

  it('describes every property, directly or through its $ref', () => {
    expect(undescribed(schema)).toEqual([]);
  });
});

describe('generated files', () => {
  it('match src-schemas (regenerated in a child process)', () => {
    expect(() =>
      execFileSync(process.execPath, [join(root, 'scripts/generate.js'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});
