// `hub validate` over the compiler's golden cases (test-fixtures/), each laid out as a repository
// of its own: every expected issue is printed as `file:line:column: code message` with the file
// relative to the root, in the compiler's order, and reported in --format json with its pointer;
// a valid case exits 0, an invalid one 1. All cases go through one run (a process costs ~0.5 s);
// a few also run alone, for their exit codes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixtures, type ExpectedIssue, type Fixture } from '../../../test-fixtures/load.js';
import type { Finished } from './support/cli.js';
import { hubIn, writeTree } from './support/repo.js';

/**
 * Cases that discovery never produces from a repository, by design, each with the reason; the
 * compiler's and the server's tests cover them with requests built by hand. Any other case that
 * fails here is a bug.
 */
const NOT_FROM_A_REPOSITORY: Record<string, string> = Object.fromEntries(
  Object.entries({
    'only the partials that a prompt includes are sent (exactly as named), so none is extra, a duplicate or badly named':
      [
        'configuration/limit-partial-count',
        'configuration/limit-partials-total-bytes',
        'configuration/limit-path-length-513',
        'configuration/partial-content-not-a-string',
        'configuration/partial-decomposed-twin-is-noncanonical',
        'configuration/partial-duplicate-after-case-folding',
        'configuration/partial-duplicate-after-case-folding-and-nfc',
        'configuration/partial-duplicate-capital-sharp-s',
        'configuration/partial-extra',
        'configuration/partial-missing-differs-in-case',
        'configuration/partial-path-absolute',
        'configuration/partial-path-backslash',
        'configuration/partial-path-control-character',
        'configuration/partial-path-dot-segment',
        'configuration/partial-path-drive-prefix',
        'configuration/partial-path-empty',
        'configuration/partial-path-empty-segment',
        'configuration/partial-path-parent-segment',
        'configuration/partial-path-trailing-slash',
        'bundle/duplicate-file-after-case-folding',
        'bundle/limit-file-count',
        'bundle/partial-extra',
        'bundle/path-noncanonical',
        'bundle/path-unsafe',
      ],
    'a bundle is .hub/hub.yml, .hub/workflows/*.yml and included partials: other files are not read': [
      'bundle/file-outside-hub-directory',
      'bundle/hub-file-missing',
      'bundle/nested-workflow',
      'bundle/non-yml-file-in-workflows',
      'bundle/workflow-yaml-extension',
    ],
    'files are UTF-8 on disk: a lone surrogate cannot be written': [
      'configuration/text-malformed-unicode-in-partial',
      'configuration/text-malformed-unicode-in-yaml',
      'bundle/text-malformed-unicode-in-workflow',
    ],
    'a file name of more than 255 bytes cannot be created': ['configuration/valid-path-length-512'],
  }).flatMap(([reason, ids]) => ids.map((id) => [id, reason])),
);

const all = loadFixtures();
const cases = all.filter((fixture) => NOT_FROM_A_REPOSITORY[fixture.id] === undefined);

/** Each case's directory under the base: kind/name. */
const dirOf = (fixture: Fixture) => fixture.id.replace(/\.yml$/, '');
const triggerFile = (fixture: Fixture) => `.hub/triggers/${fixture.id.slice('trigger/'.length)}`;

/** The case's files where discovery finds them, and the file that names the case on the command line. */
function repository(fixture: Fixture): { files: Record<string, string>; main: string } {
  if (fixture.kind === 'trigger')
    return { files: { [triggerFile(fixture)]: fixture.yaml as string }, main: triggerFile(fixture) };
  if (fixture.kind === 'bundle')
    return { files: Object.fromEntries(fixture.files.map((file) => [file.path, file.content])), main: '.hub/hub.yml' };
  const partials = fixture.files.map((file) => [`.hub/partials/${file.path}`, file.content]);
  return {
    files: { '.hub/config.yml': fixture.yaml as string, ...Object.fromEntries(partials) },
    main: '.hub/config.yml',
  };
}

/** Where the compiler's `file` is, relative to the root of the run. */
function where(fixture: Fixture, file: string | undefined): string {
  const inCase =
    fixture.kind === 'trigger'
      ? triggerFile(fixture)
      : fixture.kind === 'bundle'
        ? (file ?? '.hub/hub.yml')
        : file === undefined
          ? '.hub/config.yml'
          : `.hub/partials/${file}`;
  return `${dirOf(fixture)}/${inCase}`;
}

/** What a line must start with: `file:line:column: code ` (`file: code ` without a position). */
function prefix(fixture: Fixture, issue: ExpectedIssue, warning: boolean): string {
  const at =
    issue.line === undefined
      ? where(fixture, issue.file)
      : `${where(fixture, issue.file)}:${issue.line}:${issue.column}`;
  return `${at}: ${warning ? 'warning: ' : ''}${issue.code} `;
}

/** The issues and warnings `hub validate` reports for a case: a valid case's warnings, or an invalid one's issues. */
function expected(fixture: Fixture): { issue: ExpectedIssue; warning: boolean }[] {
  if (fixture.issues !== undefined) return fixture.issues.map((issue) => ({ issue, warning: false }));
  return (fixture.warnings ?? []).map((issue) => ({ issue, warning: true }));
}

/** A pointer into the request's file list counts files in the order sent, which is discovery's, not the case's. */
const requestPointer = (pointer: string) => pointer.replace(/^\/(files|partials)\/\d+/, '/$1/*');

let base: string;
let text: Finished;
let json: {
  valid: boolean;
  files: { path: string; valid: boolean }[];
  issues: { file: string; line?: number; column?: number; pointer: string; code: string; severity: string }[];
};

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'hub-validate-fixtures-'));
  const mains = cases.map((fixture) => {
    const { files, main } = repository(fixture);
    writeTree(join(base, dirOf(fixture)), files);
    return `${dirOf(fixture)}/${main}`;
  });
  text = await hubIn(base, ['validate', '--dir', base, ...mains]);
  const answer = await hubIn(base, ['validate', '--dir', base, '--format', 'json', ...mains]);
  expect(answer.code).toBe(1);
  json = JSON.parse(answer.stdout);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('hub validate on the golden fixtures', () => {
  it('leaves out only cases that exist, for the reasons given', () => {
    const ids = new Set(all.map((fixture) => fixture.id));
    expect(Object.keys(NOT_FROM_A_REPOSITORY).filter((id) => !ids.has(id))).toEqual([]);
    expect(cases.length).toBeGreaterThan(140);
  });

  it('the run over all cases exits 1 and ends with a summary of them all', () => {
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    const issues = cases.reduce((sum, fixture) => sum + (fixture.issues?.length ?? 0), 0);
    const warnings = cases.reduce(
      (sum, fixture) => sum + (fixture.issues === undefined ? (fixture.warnings?.length ?? 0) : 0),
      0,
    );
    expect(text.stdout).toMatch(
      new RegExp(`\\nChecked \\d+ files: ${issues} issues in \\d+ of them, ${warnings} warnings?\\.\\n$`),
    );
  });

  it.each(cases.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const mine = (path: string) => path.startsWith(`${dirOf(fixture)}/`);
    const lines = text.stdout.split('\n').filter(mine);
    const wanted = expected(fixture).map(({ issue, warning }) => prefix(fixture, issue, warning));
    expect(
      lines.map((line, index) =>
        line.startsWith(wanted[index] ?? '\0') && line.length > (wanted[index] as string).length ? wanted[index] : line,
      ),
    ).toEqual(wanted);

    const files = json.files.filter((file) => mine(file.path));
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((file) => file.valid)).toBe(fixture.issues === undefined);
    expect(
      json.issues
        .filter((issue) => mine(issue.file))
        .map((issue) => ({ ...issue, pointer: requestPointer(issue.pointer) })),
    ).toEqual(
      expected(fixture).map(({ issue, warning }) => ({
        file: where(fixture, issue.file),
        pointer: requestPointer(issue.pointer),
        code: issue.code,
        line: issue.line,
        column: issue.column,
        message: expect.any(String),
        severity: warning ? 'warning' : 'error',
      })),
    );
  });
});

describe('hub validate exit codes, one case a run', () => {
  const sample = [
    'trigger/valid-example.yml',
    'trigger/misspelled-filters.yml',
    'configuration/valid-example',
    'configuration/unknown-placeholder-in-partial',
    'bundle/valid-example',
    'bundle/issues-in-several-files-ordered-by-file',
  ];

  it.concurrent.each(sample)('%s', async (id) => {
    const fixture = cases.find((candidate) => candidate.id === id) as Fixture;
    const root = writeTree(join(base, 'alone', dirOf(fixture)), repository(fixture).files);
    const { code, stdout, stderr } = await hubIn(root, ['validate']);
    expect(stderr).toBe('');
    expect(code).toBe(fixture.issues === undefined ? 0 : 1);
    expect(stdout.split('\n').filter((line) => line.includes(': ')).length).toBe(expected(fixture).length + 1);
  });
});
