// The language server's two edges with the compiler, on the compiler's real output for every
// golden case of test-fixtures/: positions (1-based code points → 0-based UTF-16 ranges of a
// token) and the "did you mean" that issues carry as data for quick fixes.
import { compileBundle, compileConfiguration, compileTrigger, type Issue } from '@hub/compiler';
import { describe, expect, it } from 'vitest';
import { loadFixtures, type Fixture } from '../../../test-fixtures/load.js';
import { tokenRange, toPosition } from '../src/lsp/positions.js';
import { quickFixes } from '../src/lsp/quick-fix.js';

/** Each fixture's issues with the text of the file each is in. */
function issuesOf(fixture: Fixture): { issue: Issue; text: string }[] {
  const result =
    fixture.kind === 'trigger'
      ? compileTrigger({ yaml: fixture.yaml ?? '' })
      : fixture.kind === 'configuration'
        ? compileConfiguration({ yaml: fixture.yaml ?? '', partials: fixture.files })
        : compileBundle({ files: fixture.files });
  const issues = result.ok ? result.warnings : result.issues;
  return issues.map((issue) => {
    const file =
      issue.file === undefined
        ? undefined
        : fixture.files.find((entry) => entry.path === issue.file || entry.path === `.hub/workflows/${issue.file}`);
    return { issue, text: file?.content ?? fixture.yaml ?? '' };
  });
}

const found = loadFixtures().flatMap((fixture) =>
  issuesOf(fixture).map(({ issue, text }) => ({ id: fixture.id, issue, text })),
);
const placed = found.filter(({ issue }) => issue.line !== undefined);

/** The compiler's line (without its break; a leading BOM dropped) split into code points, counted apart from positions.ts. */
function codePoints(text: string, line: number): string[] {
  const content = text.split(/\r\n|\r|\n/)[line - 1] ?? '';
  return Array.from(line === 1 ? content.replace(/^\uFEFF/, '') : content);
}

describe('positions at the editor edge', () => {
  it('covers issues with positions from the golden cases', () => {
    expect(placed.length).toBeGreaterThan(50);
  });

  it.each(
    placed.map(({ id, issue, text }) => [`${id} ${issue.code} ${issue.line}:${issue.column}`, issue, text] as const),
  )('%s', (_, issue, text) => {
    const points = codePoints(text, issue.line!);
    const range = tokenRange(text, issue.line!, issue.column ?? 1);
    const character = points.slice(0, (issue.column ?? 1) - 1).join('').length;
    expect(range.start).toEqual({ line: issue.line! - 1, character });
    expect(range.end.line).toBe(range.start.line);
    const length = points.join('').length;
    // A character at least where the line has one; never past the line.
    expect(range.end.character).toBeGreaterThanOrEqual(Math.min(character + 1, length));
    expect(range.end.character).toBeLessThanOrEqual(length);
  });

  it.each([
    ['an astral character counts two UTF-16 units', 'a: 😀 x\n', 1, 6, { line: 0, character: 6 }, 7],
    ['after CRLF line ends', 'a: 1\r\nb: [x, yy]\r\n', 2, 8, { line: 1, character: 7 }, 9],
    ['after a lone CR', 'a: 1\rb: 2\n', 2, 4, { line: 1, character: 3 }, 4],
    ['a BOM does not count', '\uFEFFkey: value\n', 1, 1, { line: 0, character: 0 }, 3],
    ['a quoted scalar with its quotes', 'k: "a \\" b" # c\n', 1, 4, { line: 0, character: 3 }, 11],
    ['a placeholder inside a quoted string', 'text: "𝄞 {{ inputs.x }} y"\n', 1, 10, { line: 0, character: 10 }, 24],
    ['a key up to its colon', '  max_runtim: 2h\n', 1, 3, { line: 0, character: 2 }, 12],
    [
      'a word inside a quoted scalar (a cron field)',
      '    - cron: "0 9 * * mon,tues"\n',
      1,
      26,
      { line: 0, character: 25 },
      29,
    ],
    [
      'a word inside a plain scalar, up to a space',
      '    - cron: 0 0 * sept *\n',
      1,
      19,
      { line: 0, character: 18 },
      22,
    ],
    ['a word inside a scalar, up to a hyphen', "cron: '0 0 * * tues-fri'\n", 1, 16, { line: 0, character: 15 }, 19],
    ['a plain value from its start, whole', 'k: plain value\n', 1, 4, { line: 0, character: 3 }, 14],
    ['a position past the line end: the empty range there', 'a: 1\n', 1, 9, { line: 0, character: 4 }, 4],
    ['a line past the end clamps to the last line', 'a: 1', 7, 1, { line: 0, character: 0 }, 1],
  ])('%s', (_, text, line, column, start, end) => {
    expect(toPosition(text, line, column)).toEqual(start);
    expect(tokenRange(text, line, column)).toEqual({ start, end: { line: start.line, character: end } });
  });
});

describe('"did you mean" in the compiler’s messages', () => {
  const suggesting = found.filter(({ issue }) => issue.message.includes('did you mean'));

  it('is in some golden cases’ messages', () => {
    expect(suggesting.length).toBeGreaterThan(0);
  });

  it.each(suggesting.map(({ id, issue }) => [`${id} ${issue.code}`, issue] as const))(
    '%s: the issue carries the suggestion its message names',
    (_, issue) => {
      const suggestion = issue.suggestion;
      expect(suggestion).toBeDefined();
      expect(issue.message).toContain(`; did you mean "${suggestion}"?`);
    },
  );

  it.each(
    suggesting
      .filter(({ issue }) => issue.line !== undefined)
      .map(({ id, issue, text }) => [`${id} ${issue.code}`, issue, text] as const),
  )('%s: the fix writes the suggestion where the token was, in its quotes or placeholder braces', (_, issue, text) => {
    const range = tokenRange(text, issue.line!, issue.column ?? 1);
    const line = text.split(/\r\n|\r|\n/)[range.start.line]!;
    const token = line.slice(range.start.character, range.end.character);
    const [action] = quickFixes('file:///x.yml', text, [
      { range, message: issue.message, source: 'hub', code: issue.code, data: { suggestion: issue.suggestion } },
    ]);
    const [edit] = action!.edit!.changes!['file:///x.yml']!;
    expect(edit!.range).toEqual(range);
    const suggestion = issue.suggestion!;
    const wrapped = token.startsWith('{{')
      ? `{{ ${suggestion} }}`
      : /^["']/.test(token)
        ? `${token[0]}${suggestion}${token[0]}`
        : suggestion;
    expect(edit!.newText).toBe(wrapped);
  });

  it('fixes a quoted token after astral characters on its line exactly over its UTF-16 range', () => {
    const text = "step: { note: 😀𝄞 x, environment: 'lapto' } # 😀\n";
    const at = text.indexOf("'lapto'");
    const range = tokenRange(text, 1, Array.from(text.slice(0, at)).length + 1);
    expect(range).toEqual({ start: { line: 0, character: at }, end: { line: 0, character: at + "'lapto'".length } });
    const [action] = quickFixes('file:///x.yml', text, [
      {
        range,
        message: 'No environment is named "lapto"; did you mean "laptop"?',
        source: 'hub',
        data: { suggestion: 'laptop' },
      },
    ]);
    expect(action!.edit!.changes!['file:///x.yml']).toEqual([{ range, newText: "'laptop'" }]);
  });

  it('offers no fix for an issue without a position (an empty range at the file’s start)', () => {
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    expect(
      quickFixes('file:///x.yml', 'a: 1\n', [
        {
          range,
          message: 'x.md: No partial "testin.md"; did you mean "testing.md"?',
          source: 'hub',
          data: { suggestion: 'testing.md' },
        },
      ]),
    ).toEqual([]);
  });

  it('reads the suggestions of messages compiled here, and none from one without', () => {
    const yaml = `environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /srv }
triggers:
  - name: t
    on: { manual.run: {} }
    max_runtim: 2h
    filters: { from_users: [me] }
    steps:
      - { id: s, environment: lapto, agent: { provider: claude }, prompt: [{ text: hi }] }
`;
    const result = compileConfiguration({ yaml, partials: [] });
    const messages = result.ok ? [] : result.issues.map((issue) => [issue.code, issue.suggestion]);
    expect(messages).toEqual(
      expect.arrayContaining([
        ['schema.unknown_key', 'max_runtime'],
        ['step.unknown_environment', 'laptop'],
        ['schema.required', undefined],
      ]),
    );
  });

  it.each([
    ['a plain token', 'environment: lapto', 'laptop'],
    ['a double-quoted token keeps its quotes, escaped', 'environment: "lapto"', '"laptop"'],
    ['a single-quoted token keeps its quotes', "environment: 'lapto'", "'laptop'"],
    ['a placeholder keeps its braces and spaces', 'text: {{inputs.nme  }}', '{{laptop  }}'],
  ])('the fix of %s', (_, text, newText) => {
    const start = text.indexOf(': ') + 2;
    const range = { start: { line: 0, character: start }, end: { line: 0, character: text.length } };
    const diagnostic = {
      range,
      message: 'No environment is named "lapto"; did you mean "laptop"?',
      source: 'hub',
      code: 'step.unknown_environment',
      data: { suggestion: 'laptop' },
    };
    const [action] = quickFixes('file:///x.yml', text, [diagnostic, { ...diagnostic, source: 'yaml' }]);
    expect(action).toMatchObject({
      title: 'Change to laptop',
      kind: 'quickfix',
      edit: { changes: { 'file:///x.yml': [{ range, newText }] } },
    });
    expect(
      quickFixes('file:///x.yml', text, [{ ...diagnostic, message: 'No environment is named "lapto".', data: {} }]),
    ).toEqual([]);
  });
});
