import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  checkPath,
  compileBundle,
  compileConfiguration,
  compileTrigger,
  foldPath,
  type CompileResult,
  type CompiledConfiguration,
} from '../src/index.js';
import {
  exampleBundle,
  exampleConfiguration,
  exampleTrigger,
  githubConfiguration,
  scheduleConfiguration,
} from './support/documents.js';
import { mutated, positionsInside } from './support/mutations.js';

const runs = { numRuns: 300 };

/** Any UTF-16 text, lone surrogates included. */
const anyText = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
});
/** Text made of YAML's own punctuation, which reaches the parser's odd corners more often. */
const yamlish = fc.string({
  unit: fc.constantFrom(...'-:?[]{},&*!|>\'"%@`#\n\r\t <<.~0123456789abcxyz'.split(''), '\uFEFF', 'é', '😀'),
  maxLength: 300,
});
const partialSet = fc.array(
  fc.record({
    path: fc.oneof(fc.constantFrom('testing.md', 'Testing.md', '../x', 'a//b', 'cafe\u0301.md'), anyText),
    content: fc.oneof(anyText, fc.constant('{{ prompt }} {{ inputs.branch }} {{ nope }}')),
  }),
  { maxLength: 6 },
);

function compileAll(text: string): CompileResult<CompiledConfiguration>[] {
  return [
    compileConfiguration({ yaml: text }),
    compileTrigger({ yaml: text }),
    compileBundle({
      files: [
        { path: '.hub/hub.yml', content: text },
        { path: '.hub/workflows/w.yml', content: text },
      ],
    }),
  ];
}

describe('the compiler never throws', () => {
  it('on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, yamlish), (text) => void compileAll(text)),
      runs,
    );
  });

  it('on arbitrary YAML data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => void compileAll(stringify(value))),
      runs,
    );
  });

  it('on near-valid documents', () => {
    fc.assert(
      fc.property(
        mutated(exampleConfiguration),
        mutated(exampleTrigger),
        mutated(scheduleConfiguration),
        mutated(githubConfiguration),
        (configuration, trigger, schedule, github) => {
          compileConfiguration({ yaml: configuration, partials: [{ path: 'testing.md', content: 'x' }] });
          compileConfiguration({ yaml: schedule });
          compileConfiguration({ yaml: github });
          compileTrigger({ yaml: trigger });
        },
      ),
      runs,
    );
  });

  it('on arbitrary partial sets and bundles', () => {
    fc.assert(
      fc.property(partialSet, (partials) => {
        compileConfiguration({ yaml: exampleConfiguration, partials });
        compileBundle({
          files: [...exampleBundle, ...partials.map((p) => ({ ...p, path: `.hub/workflows/${p.path}` }))],
        });
        compileBundle({ files: partials });
      }),
      runs,
    );
  });
});

describe('positions', () => {
  it('lie inside the document for every issue', () => {
    fc.assert(
      fc.property(
        fc.oneof(mutated(exampleConfiguration), mutated(scheduleConfiguration), mutated(githubConfiguration), yamlish),
        partialSet,
        (yaml, partials) => {
          const result = compileConfiguration({ yaml, partials });
          if (result.ok) return true;
          // Duplicates are reported and dropped, so an issue's file is the first entry of that path.
          const texts = new Map<string | undefined, string>([[undefined, yaml]]);
          for (const partial of partials) if (!texts.has(partial.path)) texts.set(partial.path, partial.content);
          return positionsInside(result.issues, texts);
        },
      ),
      runs,
    );
  });

  it('lie inside the bundle file they name', () => {
    fc.assert(
      fc.property(mutated(exampleBundle[1]?.content ?? ''), (workflow) => {
        const files = exampleBundle.map((file) =>
          file.path.endsWith('review.yml') ? { ...file, content: workflow } : file,
        );
        const result = compileBundle({ files });
        if (result.ok) return true;
        return positionsInside(result.issues, new Map(files.map((file) => [file.path, file.content])));
      }),
      runs,
    );
  });
});

describe('what the compiler accepts can be stored in PostgreSQL', () => {
  const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, '0');
  /** A YAML escape, forbidden results (U+0000, lone surrogates) often. */
  const escape = fc.oneof(
    fc.constantFrom(
      '\\0',
      '\\x00',
      '\\u0000',
      '\\U00000000',
      '\\uD800',
      '\\uDBFF',
      '\\uDC00',
      '\\U0000DFFF',
      '\\uD83D',
      '\\uDE00',
    ),
    fc.constantFrom('\\uD83D\\uDE00', '\\U0001F600', '\\N', '\\_', '\\t', '\\e', '\\\\', '\\"', '\\/'),
    fc.integer({ min: 0, max: 0xff }).map((code) => `\\x${hex(code, 2)}`),
    fc.integer({ min: 0, max: 0xffff }).map((code) => `\\u${hex(code, 4)}`),
    fc.integer({ min: 0, max: 0x10ffff }).map((code) => `\\U${hex(code, 8)}`),
  );
  /** Raw characters: ordinary ones mostly, and the ones no stored text may hold. */
  const raw = fc.oneof(
    { arbitrary: fc.constantFrom(...'abc XYZ.-é中😀'.split('')), weight: 6 },
    { arbitrary: fc.constantFrom('\u0000', '\uD800', '\uDC00', '\uD83D\uDE00'), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), weight: 1 },
  );
  const quoted = fc.array(fc.oneof(escape, raw), { maxLength: 8 }).map((units) => `"${units.join('')}"`);
  const plain = fc.array(raw, { minLength: 1, maxLength: 8 }).map((units) => `x${units.join('')}`);
  /** A key: the one the document needs, or one written with escapes. */
  const key = (name: string) =>
    fc.oneof(
      fc.constant(name),
      fc.array(fc.oneof(fc.constant(name), escape), { maxLength: 3 }).map((units) => `"${units.join('')}"`),
    );
  const content = fc.oneof(
    anyText,
    fc.array(raw, { maxLength: 20 }).map((units) => units.join('')),
  );

  const storable = (text: string) => !text.includes('\u0000') && text.isWellFormed();
  /** Every string of a value, keys included, as jsonb would get them. */
  function strings(value: unknown, out: string[] = []): string[] {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const item of value) strings(item, out);
    else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) strings(item, strings(name, out));
    }
    return out;
  }
  let accepted = 0;
  /** Either refused, or every string of the model and every text the request carried is storable. */
  function storedSafely(result: CompileResult<CompiledConfiguration>, texts: string[]): boolean {
    if (!result.ok) return true;
    accepted++;
    return strings(result.value).every(storable) && texts.every(storable);
  }

  it('in a configuration and its partials', () => {
    const edited = (text: string, description: string, name: string) =>
      exampleConfiguration
        .replace('"Fix the failing tests on {{ inputs.branch }}. {{ prompt }}"', text)
        .replace('Branch to fix', description)
        .replace('branch: {', `${name}: {`);
    fc.assert(
      fc.property(quoted, fc.oneof(quoted, plain), key('branch'), content, (text, description, name, partial) => {
        const yaml = edited(text, description, name);
        return storedSafely(compileConfiguration({ yaml, partials: [{ path: 'testing.md', content: partial }] }), [
          yaml,
          partial,
        ]);
      }),
      runs,
    );
  });

  it('in a trigger', () => {
    fc.assert(
      fc.property(fc.oneof(quoted, plain), key('mode'), (prompt, name) => {
        const yaml = exampleTrigger
          .replace('"Triage new issues. {{ prompt }}"', prompt)
          .replace('mode: auto', `${name}: auto`);
        return storedSafely(compileTrigger({ yaml }), [yaml]);
      }),
      runs,
    );
  });

  it('in a bundle', () => {
    fc.assert(
      fc.property(quoted, fc.oneof(quoted, plain), key('mode'), content, (text, description, name, partial) => {
        const files = exampleBundle.map((file) => ({
          path: file.path,
          content: file.path.endsWith('.md')
            ? partial
            : file.content
                .replace('"Review pull request {{ inputs.pr }}. {{ prompt }}"', text)
                .replace('Pull request number', description)
                .replace('mode: review', `${name}: review`),
        }));
        return storedSafely(
          compileBundle({ files }),
          files.map((file) => file.content),
        );
      }),
      runs,
    );
  });

  it('was tried on documents that compile, not only on refused ones', () => {
    expect(accepted).toBeGreaterThan(runs.numRuns / 10);
  });
});

describe('compiling is deterministic', () => {
  it('gives equal results twice', () => {
    fc.assert(
      fc.property(fc.oneof(mutated(exampleConfiguration), yamlish), partialSet, (yaml, partials) => {
        expect(compileConfiguration({ yaml, partials })).toEqual(compileConfiguration({ yaml, partials }));
      }),
      { numRuns: 150 },
    );
  });
});

describe('canonical paths', () => {
  const segment = fc
    .string({
      unit: fc.oneof(fc.constantFrom(...'abcXYZ019-_. ~'.split('')), fc.constantFrom('é', 'ß', '中', '😀', 'Å')),
      minLength: 1,
      maxLength: 12,
    })
    .filter((s) => s !== '.' && s !== '..')
    .map((s) => s.normalize('NFC'));
  const canonical = fc
    .array(segment, { minLength: 1, maxLength: 6 })
    .map((segments) => segments.join('/'))
    .filter((path) => !/^[A-Za-z]:/.test(path));

  it('pass checkPath, and normalizing them changes nothing', () => {
    fc.assert(
      fc.property(canonical, (path) => {
        expect(checkPath(path)).toEqual({ ok: true, path });
        expect(path.normalize('NFC')).toBe(path);
        expect(foldPath(foldPath(path))).toBe(foldPath(path));
      }),
      runs,
    );
  });

  it('fail once a dot segment, an empty segment or a .. is spliced in', () => {
    fc.assert(
      fc.property(canonical, fc.constantFrom('.', '', '..'), (path, bad) => {
        const result = checkPath(`${path}/${bad}/x`);
        expect(result).toMatchObject({ ok: false, code: bad === '..' ? 'path.unsafe' : 'path.noncanonical' });
      }),
      runs,
    );
  });
});
