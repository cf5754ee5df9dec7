import fc from 'fast-check';
import { Parser, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { IssueCollector } from '../src/issues/collect.js';
import { defaultLimits } from '../src/limits/limits.js';
import { readFast, type FastDocument } from '../src/source/cst.js';
import { readLines } from '../src/source/lines.js';
import { SourceText, stripBom } from '../src/source/text.js';
import { composeYaml } from '../src/source/yaml.js';
import { loadFixtures } from '../../../test-fixtures/load.js';
import { pointersOf } from './support/pointers.js';
import { exampleBundle, exampleConfiguration, exampleTrigger } from './support/documents.js';
// @ts-expect-error: the benchmark's generator is plain JavaScript, without declarations.
import { generateConfiguration, generateWorkflow } from '../../../bench/generate.js';

// The fast reading (straight from yaml's CST) against the general one (yaml's composer and the
// walk), on the same tokens: where the fast one does not give up, both must find the same value,
// the same issues (codes, pointers, messages, positions) and the same place for every pointer.

const limits = { ...defaultLimits };

/** How many texts each fast reading read (the rest it gave way on). */
const counts = { lines: 0, cst: 0 };

/**
 * Compares each fast reading with the composer; true when one of them read the text, false
 * when both gave way.
 */
function agree(input: string): boolean {
  const source = new SourceText(stripBom(input).replace(/\r(?!\n)/g, '\n'));
  // parseYaml refuses these before either reading.
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(source.text)) return false;
  const tokens = Array.from(new Parser().parse(source.text));
  const lines = readLines(source, limits);
  const cst = readFast(tokens, source, limits);
  if (lines !== undefined) {
    counts.lines++;
    // What the line reading takes, the CST reading takes too.
    expect(cst, 'the CST reading gave way where the line reading did not').toBeDefined();
    compare(lines, tokens, source);
  }
  if (cst !== undefined) {
    counts.cst++;
    compare(cst, tokens, source);
  }
  return lines !== undefined || cst !== undefined;
}

function compare(
  fast: FastDocument,
  tokens: ReturnType<Parser['parse']> extends Iterable<infer T> ? T[] : never,
  source: SourceText,
): void {
  const composedIssues = new IssueCollector();
  const composed = composeYaml(tokens, source, undefined, limits, composedIssues);
  expect(composed, 'the composer refused what the fast reading accepted').toBeDefined();
  if (composed === undefined) return;
  const fastIssues = new IssueCollector();
  for (const issue of fast.found)
    fastIssues.add(issue.code, issue.message, issue.pointer, { source, offset: issue.offset });
  expect(fastIssues.finish(1_000)).toEqual(composedIssues.finish(1_000));
  expect(fast.value).toEqual(composed.value);
  expect([...fast.flagged].sort()).toEqual([...composed.flagged].sort());
  for (const pointer of pointersOf(composed.value)) {
    for (const key of [false, true]) {
      expect(fast.locator.find(pointer, key), `${pointer}${key ? ' (key)' : ''}`).toEqual(
        composed.locator.find(pointer, key),
      );
    }
  }
}

/** A valid document with a few characters spliced in or cut out. */
function mutated(base: string) {
  return fc
    .array(fc.tuple(fc.nat({ max: base.length }), fc.nat({ max: 5 }), fc.string({ maxLength: 4 })), { maxLength: 4 })
    .map((edits) => edits.reduce((text, [at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut), base));
}

/** Scalars as configurations write them, and the ones the walker reports. */
const scalar = fc.oneof(
  fc.constantFrom(
    'plain text',
    'x',
    '1',
    '-2.5e3',
    '0x1F',
    '0o17',
    '.inf',
    '.NaN',
    'true',
    'False',
    '~',
    'null',
    '',
    '<<',
    '__proto__',
  ),
  fc.constantFrom(
    '"quoted \\t text"',
    "'it''s'",
    '"\\0"',
    '"\\uD800"',
    '"a\\u0000b"',
    '"x\\U0001F600"',
    '"two\n  lines"',
    'plain\n  continued',
  ),
  fc.constantFrom('|\n  literal\n  text\n', '>-\n  folded\n\n  text\n', '|+\n  kept\n\n', '|2\n   indented\n'),
  fc.string({ unit: fc.constantFrom(...'ab -_.:#{}[],"\'é😀'.split('')), maxLength: 8 }),
);
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'name', '<<', '1', 'true', '~', '"q"', "'s'", '"\\0"', 'x y', '__proto__'),
  fc.string({ unit: fc.constantFrom(...'abc-_ '.split('')), minLength: 1, maxLength: 4 }),
);
const comment = fc.constantFrom('', '', ' # note', '  #x', '#tight');

/** Block YAML built line by line, indentation and all, duplicate and odd keys included. */
const { tree } = fc.letrec<{ tree: string[] }>((self) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar.map((value) => [value]),
    fc
      .array(fc.tuple(key, self('tree'), comment), { minLength: 1, maxLength: 4 })
      .map((entries) =>
        entries.flatMap(([name, value, note]) =>
          value.length === 1 && !(value[0] as string).startsWith('-') && !(value[0] as string).includes(': ')
            ? [`${name}: ${value[0]}${note}`]
            : [`${name}:${note}`, ...value.map((line) => `  ${line}`)],
        ),
      ),
    fc
      .array(fc.tuple(self('tree'), comment), { minLength: 1, maxLength: 4 })
      .map((items) =>
        items.flatMap(([value, note]) => [`- ${value[0] ?? ''}${note}`, ...value.slice(1).map((line) => `  ${line}`)]),
      ),
    fc
      .array(fc.tuple(key, scalar), { maxLength: 4 })
      .map((pairs) => [`{ ${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')} }`]),
    fc.array(scalar, { maxLength: 4 }).map((items) => [`[${items.join(', ')}]`]),
  ),
}));

/** Blank lines, comment lines at any indentation and trailing spaces, spliced between lines. */
function relaid(lines: string[]) {
  const extra = fc.constantFrom('', '   ', '# c', '  # c', '    # c', '  #', '      # deep');
  return fc.array(fc.tuple(fc.nat({ max: lines.length }), extra, fc.boolean()), { maxLength: 4 }).map((edits) => {
    const out = [...lines];
    for (const [at, line, trailing] of edits) {
      if (trailing && out[at] !== undefined) out[at] = `${out[at]}  `;
      else out.splice(at, 0, line);
    }
    return `${out.join('\n')}\n`;
  });
}

const runs = { numRuns: 400 };

// CPU alone, thousands of documents: their time grows with the machine's load (a test here took
// 12 s on a quiet two-core machine and 50 s beside a CPU-bound process), past vitest's 30 s.
const CPU_BOUND_MS = 300_000;

describe('the fast reading agrees with the composer', { timeout: CPU_BOUND_MS }, () => {
  it('on every fixture and example', () => {
    const texts = [exampleConfiguration, exampleTrigger, ...exampleBundle.map((file) => file.content)];
    for (const fixture of loadFixtures()) {
      if (fixture.yaml !== undefined) texts.push(fixture.yaml);
      if (fixture.kind === 'bundle') for (const file of fixture.files) texts.push(file.content);
    }
    const read = texts.filter((text) => agree(text)).length;
    for (const text of texts) agree(text.replace(/\r?\n/g, '\r\n'));
    // Most fixtures are in the part of YAML the fast reading covers.
    expect(read).toBeGreaterThan(texts.length / 2);
  });

  it("on the benchmark's documents, which it reads itself", () => {
    const generated = generateConfiguration as (chars: number) => { text: string };
    const workflow = generateWorkflow as (chars: number) => { text: string };
    const before = counts.lines;
    expect(agree(generated(30_000).text)).toBe(true);
    expect(agree(workflow(30_000).text)).toBe(true);
    expect(counts.lines - before, 'the line reading reads both').toBe(2);
    expect(agree(generated(30_000).text.replace(/\n/g, '\r\n'))).toBe(true);
    expect(counts.lines - before, 'and with Windows line breaks').toBe(3);
  });

  it('on generated block YAML', () => {
    let read = 0;
    fc.assert(
      fc.property(tree, (lines) => {
        if (agree(`${lines.join('\n')}\n`)) read++;
      }),
      runs,
    );
    expect(read).toBeGreaterThan(runs.numRuns / 4);
  });

  it('read by the line reading too, not only by the CST reading', () => {
    expect(counts.lines).toBeGreaterThan(runs.numRuns / 20);
  });

  it('on generated block YAML with blank lines, comments and trailing spaces', () => {
    fc.assert(
      fc.property(tree.chain(relaid), (text) => void agree(text)),
      runs,
    );
  });

  it('on the same with Windows line breaks', () => {
    let read = 0;
    fc.assert(
      fc.property(tree.chain(relaid), (text) => {
        if (agree(text.replace(/\n/g, '\r\n'))) read++;
      }),
      runs,
    );
    expect(read).toBeGreaterThan(runs.numRuns / 20);
  });

  it("on the benchmark's configuration, edited", () => {
    const text = (generateConfiguration as (chars: number) => { text: string })(2_500).text;
    fc.assert(
      fc.property(fc.oneof(mutated(text), relaid(text.split('\n'))), (edited) => void agree(edited)),
      runs,
    );
  });

  it('on any data, as yaml writes it', () => {
    let read = 0;
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, flow) => {
        if (agree(stringify(value, { collectionStyle: flow ? 'flow' : 'any' }))) read++;
      }),
      runs,
    );
    expect(read).toBeGreaterThan(runs.numRuns / 2);
  });

  it('on near-valid documents', () => {
    fc.assert(
      fc.property(
        mutated(exampleConfiguration),
        mutated(exampleTrigger),
        mutated(exampleBundle[1]?.content ?? ''),
        (a, b, c) => {
          agree(a);
          agree(b);
          agree(c);
        },
      ),
      runs,
    );
  });

  it('on text made of YAML punctuation', () => {
    const yamlish = fc.string({
      unit: fc.constantFrom(...'-:?[]{},&*!|>\'"%@`#\n\r\t <<.~0123456789abcxyz'.split(''), '\uFEFF', 'é'),
      maxLength: 300,
    });
    fc.assert(
      fc.property(yamlish, (text) => void agree(text)),
      runs,
    );
  });
});
