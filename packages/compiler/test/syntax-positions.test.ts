import { afterEach, describe, expect, it } from 'vitest';
import { compileConfiguration, compileTrigger } from '../src/index.js';
import { fastReadings } from '../src/source/yaml.js';

// Where a syntax error is reported, the same whichever reading parseYaml would try first (the
// fast readings give way on a syntax error; these hold them to it).
const readings = [
  ['all readings', true, true],
  ['the CST reading and the composer', false, true],
  ['the composer alone', false, false],
] as const;

afterEach(() => {
  fastReadings.lines = true;
  fastReadings.cst = true;
});

function syntaxAt(
  yaml: string,
  lines: boolean,
  cst: boolean,
  compile = compileConfiguration,
): [string, number | undefined, number | undefined][] {
  fastReadings.lines = lines;
  fastReadings.cst = cst;
  const result = compile({ yaml });
  return result.ok ? [] : result.issues.map((issue) => [issue.code, issue.line, issue.column]);
}

const agent = (lines: string) => `environments: []
triggers:
  - name: fix-tests
    steps:
      - id: fix
        agent:
${lines}`;

describe('an over-indented key', () => {
  it.each(
    readings.flatMap(
      ([reading, lines, cst]) =>
        [
          [
            'after a plain value',
            reading,
            agent('          provider: claude\n            mode: plan\n'),
            [8, 13],
            lines,
            cst,
          ],
          [
            'after a plain value, with CRLF',
            reading,
            agent('          provider: claude\n            mode: plan\n').replace(/\n/g, '\r\n'),
            [8, 13],
            lines,
            cst,
          ],
          ['without a value', reading, agent('          provider: claude\n            mode:\n'), [8, 13], lines, cst],
          [
            'after a multi-line plain value',
            reading,
            agent('          provider:\n            claude\n              mode: plan\n'),
            [9, 15],
            lines,
            cst,
          ],
          [
            'after more lines of the value',
            reading,
            agent('          provider: claude\n            more\n            mode: plan\n'),
            [9, 13],
            lines,
            cst,
          ],
          [
            'in a list item',
            reading,
            'environments: []\ntriggers:\n  - name: x\n      steps: []\n',
            [4, 7],
            lines,
            cst,
          ],
          [
            'after a quoted value',
            reading,
            agent('          provider: "claude"\n            mode: plan\n'),
            [8, 13],
            lines,
            cst,
          ],
        ] as const,
    ),
  )('%s is reported at that key (%s)', (_what, _reading, yaml, [line, column], lines, cst) => {
    expect(syntaxAt(yaml, lines, cst)).toEqual([['yaml.syntax', line, column]]);
  });

  it.each(readings)('says so in a trigger as well (%s)', (_reading, lines, cst) => {
    expect(syntaxAt('name: n\nrun:\n  target: x\n    daemon: y\n', lines, cst, compileTrigger)).toEqual([
      ['yaml.syntax', 4, 5],
    ]);
  });

  it('names the indentation, not compact mappings', () => {
    const result = compileConfiguration({ yaml: agent('          provider: claude\n            mode: plan\n') });
    expect(result.ok ? '' : result.issues[0]?.message).toMatch(/indented deeper/);
  });

  it.each([
    ['two keys on one line', 'run:\n  target: daemon: build-box\n', [2, 11]],
    ['a quoted key over two lines', 'x: 1\n"a\nb": 2\n', [2, 1]],
  ] as const)('leaves %s where yaml reports it', (_what, yaml, [line, column]) => {
    expect(syntaxAt(yaml, true, true, compileTrigger)).toEqual([['yaml.syntax', line, column]]);
  });
});
