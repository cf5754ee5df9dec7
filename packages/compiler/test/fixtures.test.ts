import { describe, expect, it } from 'vitest';
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  issueCodes,
  parseManualInput,
  resolveResources,
  type CompileResult,
  type CompiledConfiguration,
  type Issue,
} from '../src/index.js';
import { loadDispatchFixtures, loadFixtures, type ExpectedIssue, type Fixture } from '../../../test-fixtures/load.js';

const fixtures = loadFixtures();
const dispatchFixtures = loadDispatchFixtures();

function compileFixture(fixture: Fixture): CompileResult<CompiledConfiguration> {
  if (fixture.kind === 'bundle') return compileBundle({ files: fixture.files });
  if (fixture.kind === 'trigger') return compileTrigger({ yaml: fixture.yaml ?? '' });
  return compileConfiguration({ yaml: fixture.yaml ?? '', partials: fixture.files });
}

/** The parts of an issue a fixture pins down: never the wording. */
function shape(issue: Issue | ExpectedIssue): ExpectedIssue {
  const out: ExpectedIssue = { code: issue.code, pointer: issue.pointer };
  if (issue.file !== undefined) out.file = issue.file;
  if (issue.line !== undefined) out.line = issue.line;
  if (issue.column !== undefined) out.column = issue.column;
  return out;
}

describe.each(fixtures.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
  it(fixture.description || 'compiles as expected', () => {
    const result = compileFixture(fixture);
    if (fixture.issues === undefined) {
      expect(result.ok ? [] : result.issues.map(shape)).toEqual([]);
      if (!result.ok) return;
      expect(result.warnings.map(shape)).toEqual((fixture.warnings ?? []).map(shape));
      if (fixture.catalog !== undefined) {
        expect(resolveResources(result.value, fixture.catalog).map(shape)).toEqual(
          (fixture.resourceIssues ?? []).map(shape),
        );
      }
    } else {
      expect(result.ok ? [] : result.issues.map(shape)).toEqual(fixture.issues.map(shape));
    }
  });
});

describe.each(dispatchFixtures.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
  it(fixture.description, () => {
    const result = parseManualInput(fixture.input, fixture.declared);
    if (fixture.issues === undefined)
      expect(result).toEqual({ ok: true, inputs: fixture.inputs, prompt: fixture.prompt });
    else expect(result.ok ? [] : result.issues.map(shape)).toEqual(fixture.issues.map(shape));
  });
});

describe('the fixture set', () => {
  it('has at least 80 cases', () => {
    expect(fixtures.length + dispatchFixtures.length).toBeGreaterThanOrEqual(80);
  });

  it('covers every issue code the compiler emits', () => {
    const covered = new Set<string>();
    for (const fixture of fixtures) {
      for (const issue of [...(fixture.issues ?? []), ...(fixture.warnings ?? []), ...(fixture.resourceIssues ?? [])]) {
        covered.add(issue.code);
      }
    }
    for (const fixture of dispatchFixtures) for (const issue of fixture.issues ?? []) covered.add(issue.code);
    const missing = Object.keys(issueCodes).filter((code) => !covered.has(code));
    expect(missing).toEqual([]);
  });

  it('names only codes that exist', () => {
    const unknown = fixtures
      .flatMap((fixture) => [...(fixture.issues ?? []), ...(fixture.warnings ?? []), ...(fixture.resourceIssues ?? [])])
      .filter((issue) => !(issue.code in issueCodes));
    expect(unknown).toEqual([]);
  });
});
