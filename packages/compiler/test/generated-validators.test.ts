// The validators compiled at build time (src/validate/generated/validators.ts): committed, checked
// for drift against @hub/schemas, and reporting exactly the errors that ajv.compile() would.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generate, OPTIONS, publishedSchemas, TARGET } from '../scripts/generate-validators.js';
import { validatorFor, type DocumentKind } from '../src/validate/schemas.js';
import { loadFixtures } from '../../../test-fixtures/load.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const schemas = publishedSchemas();
const names: Record<DocumentKind, keyof typeof schemas> = {
  configuration: 'configuration',
  trigger: 'trigger',
  'legacy-hub': 'legacyHub',
  'legacy-workflow': 'legacyWorkflow',
};
const ajv = new Ajv2020(OPTIONS);
const compiled = Object.fromEntries(
  Object.entries(names).map(([kind, name]) => [kind, ajv.compile(schemas[name])]),
) as Record<DocumentKind, ValidateFunction>;

/** What each validator says of `value`: the result and the error objects, verbose parts included. */
function verdicts(kind: DocumentKind, value: unknown) {
  const generated = validatorFor(kind);
  const runtime = compiled[kind];
  return {
    generated: { valid: generated(value), errors: structuredClone(generated.errors ?? null) },
    runtime: { valid: runtime(value), errors: structuredClone(runtime.errors ?? null) },
  };
}

/** The fixtures' documents as data, by the schema each is validated against (YAML that parses). */
function documents(): [string, DocumentKind, unknown][] {
  const out: [string, DocumentKind, unknown][] = [];
  const add = (id: string, kind: DocumentKind, text: string) => {
    try {
      out.push([id, kind, parse(text, { uniqueKeys: false, logLevel: 'silent' })]);
    } catch {
      // Not YAML: the compiler reports it before any schema.
    }
  };
  for (const fixture of loadFixtures()) {
    if (fixture.kind === 'bundle') {
      for (const file of fixture.files) {
        if (/(^|\/)hub\.yml$/.test(file.path)) add(`${fixture.id}/${file.path}`, 'legacy-hub', file.content);
        else if (/(^|\/)workflows\/[^/]+\.yml$/.test(file.path))
          add(`${fixture.id}/${file.path}`, 'legacy-workflow', file.content);
      }
    } else if (fixture.yaml !== undefined) add(fixture.id, fixture.kind, fixture.yaml);
  }
  return out;
}

describe('the generated validators', () => {
  it(`${TARGET} is what the generator makes of @hub/schemas (regenerated in a child process)`, () => {
    expect(() =>
      execFileSync(process.execPath, [join(root, 'scripts/generate-validators.js'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('go stale when a schema changes: the drift check would fail', () => {
    const committed = readFileSync(join(root, TARGET), 'utf8');
    expect(generate()).toBe(committed);
    expect(generate({ ...schemas, trigger: { ...schemas.trigger, maxProperties: 3 } })).not.toBe(committed);
    expect(generate({ ...schemas, trigger: { ...schemas.trigger, description: 'Changed.' } })).not.toBe(committed);
  });

  const cases = documents();
  it('cover every fixture kind', () => {
    expect(new Set(cases.map(([, kind]) => kind))).toEqual(new Set(Object.keys(names)));
  });

  it.each(cases)('report what ajv.compile reports for %s', (_id, kind, value) => {
    const { generated, runtime } = verdicts(kind, value);
    expect(generated).toEqual(runtime);
  });

  it.each(Object.keys(names) as DocumentKind[])(
    'report what ajv.compile reports for any JSON value as a %s, and for a fixture with a value replaced',
    (kind) => {
      const bases = cases.filter(([, of]) => of === kind).map(([, , value]) => value);
      const replaced = fc
        .tuple(
          fc.constantFrom(...bases),
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          fc.jsonValue({ maxDepth: 3 }),
        )
        .map(([base, path, value]) => replace(base, path, value));
      fc.assert(
        fc.property(fc.oneof(fc.jsonValue({ maxDepth: 4 }), replaced), (value) => {
          const { generated, runtime } = verdicts(kind, value);
          expect(generated).toEqual(runtime);
        }),
        { numRuns: 300 },
      );
    },
  );
});

/** A copy of `base` with the node that `path` picks (each step an index into the keys or items) set to `value`. */
function replace(base: unknown, path: number[], value: unknown): unknown {
  const copy = structuredClone(base);
  let node = copy;
  for (const [depth, step] of path.entries()) {
    if (node === null || typeof node !== 'object') break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[step % keys.length] as string;
    const record = node as Record<string, unknown>;
    if (depth === path.length - 1) record[key] = value;
    else node = record[key];
  }
  return copy;
}
