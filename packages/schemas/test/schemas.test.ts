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

/** Every schema object that has "properties" must describe each of them. */
function undescribed(node: unknown, path = ''): string[] {
  if (node === null || typeof node !== 'object') return [];
  const out: string[] = [];
  const record = node as Record<string, unknown>;
  if (record.properties && typeof record.properties === 'object') {
    for (const [key, value] of Object.entries(record.properties as Record<string, Record<string, unknown>>)) {
      const target = typeof value.$ref === 'string' ? value : value;
      if (typeof target.description !== 'string' && typeof value.$ref !== 'string') out.push(`${path}/properties/${key}`);
    }
  }
  for (const [key, value] of Object.entries(record)) out.push(...undescribed(value, `${path}/${key}`));
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
