// The GitHub kinds in the model (DECISIONS.md, "Runs that no person dispatches"): github.mention
// with the inputs declared under it, github.label with its name, in the three document shapes
// where they are allowed, and declaredInputs reading a trigger's inputs from whichever kind
// declares them.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileBundle,
  compileConfiguration,
  declaredInputs,
  parseManualInput,
  type CompiledTrigger,
} from '../src/index.js';
import { configurationWith } from './support/documents.js';

const fixture = (path: string) => readFileSync(new URL(`../../../test-fixtures/${path}`, import.meta.url), 'utf8');

function triggers(yaml: string): CompiledTrigger[] {
  const result = compileConfiguration({ yaml });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value.triggers;
}

describe('the GitHub kinds in the model', () => {
  it('compiles each kind with its options, after the others', () => {
    const [fix, triage, review] = triggers(fixture('configuration/valid-github-kinds.yml'));
    expect(fix?.events).toEqual([
      {
        kind: 'github.mention',
        inputs: [
          { name: 'area', description: 'Where to look', required: false, default: 'api', enum: ['api', 'web'] },
          { name: 'depth', required: true },
        ],
      },
    ]);
    expect(fix?.allowlist).toEqual(['Octocat', 'hubot']);
    expect(triage?.events).toEqual([{ kind: 'github.label', name: 'needs: triage' }]);
    expect(review?.events).toEqual([
      { kind: 'manual.run', inputs: [{ name: 'focus', required: false }] },
      { kind: 'github.mention', inputs: [] },
      { kind: 'github.label', name: 'review' },
    ]);
  });

  it('compiles them in a legacy workflow', () => {
    const files = ['.hub/hub.yml', '.hub/workflows/review.yml'].map((path) => ({
      path,
      content: fixture(`bundle/valid-github-kinds/${path}`),
    }));
    const result = compileBundle({ files });
    expect(result.ok && result.value.triggers[0]?.events).toEqual([
      {
        kind: 'github.mention',
        inputs: [{ name: 'focus', required: false, default: 'tests', enum: ['tests', 'style'] }],
      },
      { kind: 'github.label', name: 'review' },
    ]);
  });
});

describe('declaredInputs', () => {
  const only = (on: string) => triggers(configurationWith({ on }))[0] as CompiledTrigger;

  it.each([
    ['manual.run', '{ manual.run: { inputs: { a: {} } } }', ['a']],
    ['github.mention', '{ github.mention: { inputs: { b: {} } } }', ['b']],
    [
      'github.mention, with manual.run declaring none',
      '{ manual.run: {}, github.mention: { inputs: { c: {} } } }',
      ['c'],
    ],
    ['manual.run, with github.mention', '{ manual.run: { inputs: { d: {} } }, github.mention: {} }', ['d']],
    ['no kind', '{ manual.run: {}, github.label: { name: x } }', []],
    ['a schedule-only trigger', '{ schedule: [{ cron: "@daily" }] }', []],
  ])('reads the inputs declared under %s', (_case, on, names) => {
    expect(declaredInputs(only(on)).map((input) => input.name)).toEqual(names);
  });

  it('is what a mention-only trigger parses its input text against', () => {
    const trigger = only('{ github.mention: { inputs: { area: { enum: [api, web] } } } }');
    expect(parseManualInput('area=web Fix the login', declaredInputs(trigger))).toEqual({
      ok: true,
      inputs: { area: 'web' },
      prompt: 'Fix the login',
    });
    expect(parseManualInput('area=db', declaredInputs(trigger)).ok).toBe(false);
  });
});

describe('inputs, wherever declared', () => {
  const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 5 });
  const inputs = (list: string[]) => `{ inputs: { ${list.map((name) => `${name}: {}`).join(', ')} } }`;

  it('are the same under manual.run or github.mention, and reported once under both', () => {
    fc.assert(
      fc.property(names, (list) => {
        const manual = triggers(
          configurationWith({ on: `{ manual.run: ${inputs(list)}, github.label: { name: x } }` }),
        );
        const mention = triggers(configurationWith({ on: `{ github.mention: ${inputs(list)}, manual.run: {} }` }));
        expect(declaredInputs(manual[0] as CompiledTrigger)).toEqual(declaredInputs(mention[0] as CompiledTrigger));
        const both = compileConfiguration({
          yaml: configurationWith({ on: `{ manual.run: ${inputs(list)}, github.mention: ${inputs(list)} }` }),
        });
        expect(both.ok ? [] : both.issues.map((issue) => issue.code)).toEqual(['trigger.inputs_declared_twice']);
      }),
      { numRuns: 50 },
    );
  });
});
