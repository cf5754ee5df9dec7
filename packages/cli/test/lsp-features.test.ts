// Completion and hover of `hub lsp` (src/lsp/features/), as pure functions: documents with a
// cursor marker ‸, mostly half-typed, and the labels offered or the hover shown there.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { CompletionItem, MarkupContent, Position, Range } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import { completeAt } from '../src/lsp/features/complete.js';
import { hoverAt } from '../src/lsp/features/hover.js';
import {
  complete,
  hover,
  TRIGGER_CHARACTERS,
  type DocumentKind,
  type FeatureContext,
} from '../src/lsp/features/index.js';

const MARK = '‸';

/** The document without its marker, and the marker's LSP position (0-based, UTF-16). */
function marked(source: string): { text: string; position: Position } {
  const at = source.indexOf(MARK);
  if (at < 0 || source.indexOf(MARK, at + 1) >= 0) throw new Error('one ‸ per document');
  const before = source.slice(0, at);
  const line = before.split(/\r\n|\r|\n/).length - 1;
  const character = before.length - Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) - 1;
  return { text: before + source.slice(at + 1), position: { line, character } };
}

const PARTIALS: Record<string, string> = {
  'testing.md': 'Run the tests first.\n',
  'review/style.md': Array.from({ length: 12 }, (_, i) => `style line ${i + 1}`).join('\n'),
  'partials/checks.md': 'Check the build.\n',
};

function context(kind: DocumentKind, text: string, extra: Partial<FeatureContext> = {}): FeatureContext {
  const partials = kind === 'legacy-workflow' ? ['partials/checks.md'] : ['review/style.md', 'testing.md'];
  return { kind, text, partials, readPartial: (path) => PARTIALS[path], ...extra };
}

function labels(kind: DocumentKind, source: string, extra: Partial<FeatureContext> = {}): string[] {
  const { text, position } = marked(source);
  return complete(context(kind, text, extra), position).map((item) => item.label);
}

function items(kind: DocumentKind, source: string, extra: Partial<FeatureContext> = {}): CompletionItem[] {
  const { text, position } = marked(source);
  return complete(context(kind, text, extra), position);
}

function hoverText(kind: DocumentKind, source: string): string | undefined {
  const { text, position } = marked(source);
  return (hover(context(kind, text), position)?.contents as MarkupContent | undefined)?.value;
}

const CONFIG_HEAD = `environments:
  - name: laptop
    kind: daemon
    daemon: dev-box
    cwd: ~/src/app
  - name: ci
    kind: daemon
    daemon: build-box
    cwd: /srv/repo
triggers:
  - name: fix-tests
    on:
      manual.run:
        inputs:
          branch: { description: Branch to fix, default: main }
          depth: {}
    max_runtime: 2h
    steps:
      - id: fix
`;
const SECOND_TRIGGER = `  - name: other
    on:
      manual.run:
        inputs:
          ticket: {}
    max_runtime: 1h
    steps:
      - id: look
        environment: ci
        agent: { provider: codex }
        prompt:
          - text: "Look at {{ inputs.ticket }}"
`;

const HUB_YAML = `environments:
  build:
    kind: daemon
    daemon: build-box
    cwd: /srv/repo
agents:
  reviewer:
    provider: claude
    mode: review
`;

describe('complete', () => {
  it.each<[string, DocumentKind, string, string[], string[]]>([
    ['top-level keys of an empty configuration', 'configuration', MARK, ['environments', 'triggers'], []],
    ['top-level keys not yet present', 'configuration', `environments: []\n${MARK}`, ['triggers'], ['environments']],
    [
      'a half-typed key of an environment',
      'configuration',
      `environments:\n  - name: a\n    ki${MARK}\n`,
      ['kind', 'daemon', 'cwd'],
      ['name', 'triggers'],
    ],
    [
      'keys after a trailing "- "',
      'configuration',
      `environments: []\ntriggers:\n  - ${MARK}`,
      ['name', 'on', 'max_runtime', 'steps', 'filters', 'enabled'],
      ['id', 'environments'],
    ],
    [
      "a step's keys on a blank line",
      'configuration',
      `${CONFIG_HEAD}        ${MARK}\n        prompt: []\n`,
      ['environment', 'agent', 'max_runtime', 'idle_timeout'],
      ['id', 'prompt', 'name'],
    ],
    [
      "a compact sequence (entries at the key's column)",
      'configuration',
      `triggers:\n- name: t\n  steps:\n  - id: s\n    ${MARK}`,
      ['environment', 'agent', 'prompt'],
      ['id', 'name'],
    ],
    [
      'event kinds under on',
      'configuration',
      `triggers:\n  - name: t\n    on:\n      ${MARK}`,
      ['manual.run'],
      ['inputs'],
    ],
    [
      "an input's keys, under a map of names",
      'configuration',
      `triggers:\n  - on:\n      manual.run:\n        inputs:\n          branch:\n            ${MARK}`,
      ['description', 'required', 'default', 'enum'],
      [],
    ],
    [
      "a prompt item's one key",
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - ${MARK}\n`,
      ['text', 'include'],
      [],
    ],
    [
      'no second key in a prompt item',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: a\n            ${MARK}\n`,
      [],
      [],
    ],
    [
      'keys in a flow mapping',
      'configuration',
      `${CONFIG_HEAD}        agent: { provider: claude, ${MARK} }\n`,
      ['mode', 'model'],
      ['provider', 'id'],
    ],
    [
      'keys in a flow mapping that is a sequence entry',
      'configuration',
      `environments:\n  - { name: a, ${MARK} }\n`,
      ['kind', 'daemon', 'cwd'],
      ['name'],
    ],
    ['keys in a nested flow mapping', 'trigger', `run: { target: { daemon: d, ${MARK}`, ['cwd'], ['daemon', 'agent']],
    [
      'environment names of the configuration',
      'configuration',
      `${CONFIG_HEAD}        environment: ${MARK}\n`,
      ['laptop', 'ci'],
      ['build'],
    ],
    [
      'environment names with a half-typed, broken document around',
      'configuration',
      `${CONFIG_HEAD}        environment: l${MARK}\n        agent: { provider: \n      - id: "broken\n`,
      ['laptop', 'ci'],
      [],
    ],
    [
      'nothing in the indentation of a line with content',
      'configuration',
      `environments:\n  - name: a\n  ${MARK}  kind: daemon\n`,
      [],
      [],
    ],
    [
      'nothing in a comment after a value',
      'configuration',
      `${CONFIG_HEAD}        environment: laptop # or ${MARK}\n`,
      [],
      [],
    ],
    ['an enum value', 'configuration', `environments:\n  - name: a\n    kind: ${MARK}`, ['daemon'], []],
    ['booleans', 'trigger', `name: t\nenabled: ${MARK}\n`, ['true', 'false'], []],
    [
      'duration units after a number',
      'configuration',
      `triggers:\n  - max_runtime: 90${MARK}`,
      ['90d', '90h', '90m', '90s'],
      [],
    ],
    [
      'only the units that may follow the last one',
      'trigger',
      `run:\n  agent:\n    idle_timeout: 1h3${MARK}`,
      ['1h3m', '1h3s'],
      ['1h3d', '1h3h'],
    ],
    [
      'no units where the value is no number',
      'configuration',
      `triggers:\n  - max_runtime: soon${MARK}`,
      [],
      ['soond'],
    ],
    [
      'partial paths in include',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - include: ${MARK}\n`,
      ['testing.md', 'review/style.md'],
      [],
    ],
    [
      'partial paths in a quoted include',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - include: "rev${MARK}"\n`,
      ['testing.md', 'review/style.md'],
      [],
    ],
    [
      'declared inputs of the trigger around the cursor',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "Fix {{ inputs.${MARK}\n${SECOND_TRIGGER}`,
      ['branch', 'depth'],
      ['ticket', 'prompt'],
    ],
    [
      'declared inputs of the second trigger',
      'configuration',
      `${CONFIG_HEAD}${SECOND_TRIGGER}          - text: "{{ inputs.t${MARK} }}"\n`,
      ['ticket'],
      ['branch'],
    ],
    [
      'prompt and inputs after {{',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "Fix {{ ${MARK}"\n`,
      ['prompt', 'inputs.branch', 'inputs.depth'],
      [],
    ],
    [
      'inputs in a block scalar',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: |\n              Fix it: see\n                {{ inputs.${MARK}\n`,
      ['branch', 'depth'],
      [],
    ],
    [
      "nothing inside a block scalar's text",
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: |\n              Fix it:\n              ${MARK}\n`,
      [],
      ['environment', 'text', 'include'],
    ],
    [
      'astral characters before the cursor',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "🎉🎉 {{ inputs.br${MARK}"\n`,
      ['branch'],
      [],
    ],
    [
      'astral characters before a flow key',
      'configuration',
      `${CONFIG_HEAD}        agent: { model: "🎉 x", ${MARK}`,
      ['provider', 'mode'],
      ['model'],
    ],
    [
      'inputs of an entry that starts with on',
      'configuration',
      `triggers:\n  - on:\n      manual.run:\n        inputs:\n          area: {}\n    steps:\n      - prompt:\n          - text: "{{ inputs.${MARK}`,
      ['area'],
      [],
    ],
    [
      'inputs in a flow sequence',
      'configuration',
      `${CONFIG_HEAD}        prompt: [{ text: "{{ inputs.${MARK}" }]\n`,
      ['branch'],
      [],
    ],
    ['a half-typed key after "- "', 'configuration', `triggers:\n  - na${MARK}\n`, ['name', 'on'], []],
    [
      "a trigger document's agent keys",
      'trigger',
      `name: t\nrun:\n  agent:\n    provider: codex\n    ${MARK}\n`,
      ['model', 'mode', 'prompt', 'max_runtime', 'idle_timeout'],
      ['provider', 'target'],
    ],
    [
      "a trigger document's inputs",
      'trigger',
      `on:\n  manual.run:\n    inputs:\n      area: {}\nrun:\n  agent:\n    prompt: "Triage {{ inputs.${MARK}"\n`,
      ['area'],
      [],
    ],
    [
      "a legacy hub file's environment keys",
      'legacy-hub',
      `environments:\n  build:\n    ${MARK}`,
      ['kind', 'daemon', 'cwd'],
      ['name'],
    ],
    ["a legacy hub file's agent keys", 'legacy-hub', `agents:\n  r:\n    mo${MARK}`, ['provider', 'mode', 'model'], []],
    [
      'CRLF line breaks',
      'configuration',
      `environments:\r\n  - name: a\r\n    ${MARK}\r\n    cwd: x\r\n`,
      ['kind', 'daemon'],
      ['cwd', 'name'],
    ],
    ['prompt only in a partial', 'partial', `Look at {{ ${MARK}`, ['prompt'], []],
    ['no inputs known in a partial', 'partial', `Look at {{ inputs.${MARK}`, [], []],
    ["nothing in a partial's plain text", 'partial', `environment: ${MARK}`, [], []],
  ])('%s', (_, kind, source, present, absent) => {
    const offered = labels(kind, source);
    for (const label of present) expect(offered).toContain(label);
    for (const label of absent) expect(offered).not.toContain(label);
    if (present.length === 0) expect(offered).toEqual([]);
  });

  describe('a legacy workflow, with its hub file', () => {
    const WORKFLOW = `name: review\non:\n  manual.run: {}\nmax_runtime: 1h\nsteps:\n  - id: check\n`;
    it.each<[string, string, string[], string[]]>([
      ['environment names from hub.yml', `${WORKFLOW}    environment: ${MARK}`, ['build'], ['laptop']],
      ['agent names from hub.yml', `${WORKFLOW}    agent: ${MARK}`, ['reviewer'], ['build']],
      ['inline agent keys', `${WORKFLOW}    agent:\n      ${MARK}`, ['provider', 'mode', 'model'], []],
      [
        'include paths relative to workflows/',
        `${WORKFLOW}    prompt:\n      - include: ${MARK}`,
        ['partials/checks.md'],
        ['testing.md'],
      ],
      [
        'declared inputs of the workflow',
        `${WORKFLOW.replace('manual.run: {}', 'manual.run:\n    inputs:\n      pr: {}')}    prompt:\n      - text: "{{ inputs.${MARK}`,
        ['pr'],
        [],
      ],
      ["a step's keys", `${WORKFLOW}    ${MARK}`, ['environment', 'agent', 'prompt'], ['id', 'steps']],
    ])('%s', (_, source, present, absent) => {
      const offered = labels('legacy-workflow', source, { hubYaml: HUB_YAML });
      for (const label of present) expect(offered).toContain(label);
      for (const label of absent) expect(offered).not.toContain(label);
    });

    it('offers no environments without a hub file', () => {
      expect(labels('legacy-workflow', `${WORKFLOW}    environment: ${MARK}`)).toEqual([]);
    });
  });

  it('replaces the key typed so far, dot included, with "key: "', () => {
    const [item] = items('configuration', `triggers:\n  - on:\n      manual.r${MARK}`);
    expect(item).toMatchObject({
      label: 'manual.run',
      textEdit: {
        newText: 'manual.run: ',
        range: { start: { line: 2, character: 6 }, end: { line: 2, character: 14 } },
      },
    });
  });

  it('replaces a key in the middle of the word without a second colon', () => {
    const found = items('configuration', `environments:\n  - name: a\n    da${MARK}emon: x\n`).find(
      (item) => item.label === 'daemon',
    );
    expect(found?.textEdit).toEqual({
      newText: 'daemon',
      range: { start: { line: 2, character: 4 }, end: { line: 2, character: 10 } },
    });
  });

  it('puts a space after a bare colon', () => {
    const found = items('configuration', `${CONFIG_HEAD}        environment:${MARK}\n`).find(
      (item) => item.label === 'laptop',
    );
    expect(found?.textEdit).toMatchObject({ newText: ' laptop' });
    expect(found?.detail).toBe('dev-box: ~/src/app');
  });

  it('puts a space after a bare colon in a flow mapping', () => {
    const found = items('configuration', `environments:\n  - { name: a, kind:${MARK} }\n`).find(
      (item) => item.label === 'daemon',
    );
    expect(found?.textEdit).toMatchObject({ newText: ' daemon' });
  });

  it('counts UTF-16 code units in ranges after astral characters', () => {
    const found = items(
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "🎉 {{ inputs.br${MARK}"\n`,
    ).find((item) => item.label === 'branch');
    // `          - text: "🎉 {{ inputs.` is 32 UTF-16 code units (🎉 is two), 31 code points.
    expect(found?.textEdit).toMatchObject({
      newText: 'branch }}',
      range: { start: { character: 32 }, end: { character: 34 } },
    });
  });

  it('does not close a placeholder that is closed', () => {
    const found = items(
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "{{ inputs.${MARK} }}"\n`,
    ).find((item) => item.label === 'branch');
    expect(found?.textEdit).toMatchObject({ newText: 'branch' });
    expect(found?.detail).toBe('default main');
    expect(found?.documentation).toEqual({ kind: 'markdown', value: 'Branch to fix' });
  });

  it('documents keys with their schema descriptions, required keys first', () => {
    const offered = items('configuration', `environments: []\ntriggers:\n  - ${MARK}`);
    const runtime = offered.find((item) => item.label === 'max_runtime');
    expect((runtime?.documentation as MarkupContent).value).toContain('The longest the whole run may take.');
    const order = [...offered]
      .sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''))
      .map((item) => item.label);
    expect(order.indexOf('steps')).toBeLessThan(order.indexOf('filters'));
  });

  it('never throws, whatever the position', () => {
    const text = `${CONFIG_HEAD}        agent: { provider: [ "a\n  - {{\n\t- : : ]}\n`;
    for (const kind of ['configuration', 'trigger', 'legacy-hub', 'legacy-workflow', 'partial'] as const) {
      const lines = text.split('\n');
      for (let line = 0; line <= lines.length + 1; line++) {
        for (let character = 0; character <= (lines[line]?.length ?? 0) + 2; character++) {
          expect(Array.isArray(complete(context(kind, text), { line, character }))).toBe(true);
          hover(context(kind, text), { line, character });
        }
      }
    }
  });

  it('asks again after a colon, a space and a dot', () => {
    expect(TRIGGER_CHARACTERS).toEqual(expect.arrayContaining([':', ' ', '.']));
  });
});

describe('hover', () => {
  it.each<[string, DocumentKind, string, string[]]>([
    [
      "a step's environment",
      'configuration',
      `${CONFIG_HEAD}        envi${MARK}ronment: laptop\n`,
      ['**environment**', 'The name of the environment the step runs in.', '`string`'],
    ],
    [
      "a trigger's max_runtime",
      'configuration',
      `${CONFIG_HEAD.replace('    max_runtime', `    max_run${MARK}time`)}`,
      ['The longest the whole run may take.', 'duration'],
    ],
    [
      'an enum',
      'configuration',
      `environments:\n  - name: a\n    ${MARK}kind: daemon\n`,
      ['The kind of environment', 'one of `daemon`'],
    ],
    [
      "a $ref's description",
      'configuration',
      `environments:\n  - name: a\n    daemon${MARK}: dev-box\n`,
      ['The name of a daemon enrolled in the organization.'],
    ],
    ['a key after "- "', 'configuration', `triggers:\n  - na${MARK}me: t\n`, ["The trigger's name"]],
    [
      "a legacy step's agent",
      'legacy-workflow',
      `steps:\n  - id: a\n    ag${MARK}ent: reviewer\n`,
      ["the name of an entry of the hub file's agents"],
    ],
    [
      "a legacy hub file's environment",
      'legacy-hub',
      `environments:\n  build:\n    cw${MARK}d: /srv\n`,
      ['working directory'],
    ],
    [
      'a key in a flow mapping',
      'configuration',
      `${CONFIG_HEAD}        agent: { provider: claude, mo${MARK}de: edit }\n`,
      ['**mode**', "The provider's mode"],
    ],
    [
      'a key in a flow mapping that is a sequence entry',
      'configuration',
      `environments:\n  - { name: a, ki${MARK}nd: daemon }\n`,
      ['**kind**', 'one of `daemon`'],
    ],
    [
      'a key in a nested flow mapping',
      'trigger',
      `run: { target: { daemon: d, c${MARK}wd: /srv } }\n`,
      ['**cwd**', 'The working directory'],
    ],
    [
      "an include's partial, its first lines",
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - include: review/st${MARK}yle.md\n`,
      ['**review/style.md**', 'style line 1\n', 'style line 10\n', '(2 more lines)'],
    ],
    [
      'a quoted include',
      'configuration',
      `prompt:\n  - include: "test${MARK}ing.md"\n`,
      ['```markdown\nRun the tests first.\n```'],
    ],
    [
      "a step's environment, on its value",
      'configuration',
      `${CONFIG_HEAD}        environment: lap${MARK}top\n`,
      ['**laptop**: environment (dev-box: ~/src/app)'],
    ],
    [
      "a declared input's placeholder",
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "Fix {{ inputs.br${MARK}anch }} now"\n`,
      ['**{{ inputs.branch }}**', 'Branch to fix', 'default main'],
    ],
    ['{{ prompt }} in a partial', 'partial', `Then: {{ pro${MARK}mpt }}`, ['leading key=value tokens']],
    [
      'an include that names no partial',
      'configuration',
      `prompt:\n  - include: nope${MARK}.md\n`,
      ['No partial `nope.md`'],
    ],
  ])('%s', (_, kind, source, parts) => {
    const shown = hoverText(kind, source);
    for (const part of parts) expect(shown).toContain(part);
  });

  it("names a legacy step's agent from the hub file", () => {
    const { text, position } = marked(`steps:\n  - id: a\n    agent: revi${MARK}ewer\n`);
    const shown = hover(context('legacy-workflow', text, { hubYaml: HUB_YAML }), position);
    expect(shown?.contents).toEqual({
      kind: 'markdown',
      value: '**reviewer**: agent of the hub file (provider claude, mode review)',
    });
  });

  it('shows no more than the first lines of a partial', () => {
    expect(hoverText('configuration', `prompt:\n  - include: review/st${MARK}yle.md\n`)).not.toContain('style line 11');
  });

  it.each<[string, DocumentKind, string]>([
    ['an unknown key', 'configuration', `environments:\n  - name: a\n    com${MARK}and: x\n`],
    [
      "a block scalar's text that looks like a key",
      'configuration',
      `triggers:\n  - steps:\n      - prompt:\n          - text: |\n              na${MARK}me: x\n`,
    ],
    ['a plain value', 'configuration', `environments:\n  - name: lap${MARK}top\n`],
    ["a flow mapping's value", 'configuration', `${CONFIG_HEAD}        agent: { provider: cla${MARK}ude }\n`],
    [
      'an undeclared input',
      'configuration',
      `${CONFIG_HEAD}        prompt:\n          - text: "Fix {{ inputs.bra${MARK}nc }}"\n`,
    ],
    ['an environment the document lacks', 'configuration', `${CONFIG_HEAD}        environment: prod${MARK}\n`],
    ['a partial', 'partial', `na${MARK}me: x`],
  ])('shows nothing on %s', (_, kind, source) => {
    expect(hoverText(kind, source)).toBeUndefined();
  });

  it('covers the key it describes', () => {
    const { text, position } = marked(`environments:\n  - name: a\n    da${MARK}emon: x\n`);
    expect(hover(context('configuration', text), position)?.range).toEqual({
      start: { line: 2, character: 4 },
      end: { line: 2, character: 10 },
    });
  });
});

describe('on any edit of the examples', () => {
  const EXAMPLES: [DocumentKind, string][] = [
    ['configuration', '../../schemas/examples/configuration.yml'],
    ['trigger', '../../schemas/examples/trigger.yml'],
    ['legacy-hub', '../../schemas/examples/bundle/.hub/hub.yml'],
  ];
  const documents = EXAMPLES.map(
    ([kind, path]) => [kind, readFileSync(new URL(path, import.meta.url), 'utf8')] as const,
  );
  const within = (range: Range, position: Position, length: number) =>
    range.start.line === position.line &&
    range.end.line === position.line &&
    range.start.character <= position.character &&
    position.character <= range.end.character &&
    range.end.character <= length;

  // The inner functions, which index.ts wraps in a try: here a throw fails the property.
  it('answers without throwing, with ranges on the cursor line around the cursor', () => {
    const edit = fc.record({
      example: fc.nat(documents.length - 1),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
      inserted: fc.string({
        unit: fc.constantFrom(
          ' ',
          '-',
          ':',
          '{',
          '}',
          '[',
          ']',
          ',',
          '"',
          "'",
          '|',
          '#',
          '\n',
          'a',
          'é',
          '🎉',
          '{{ ',
          'inputs.',
          '\r\n',
        ),
        maxLength: 12,
      }),
      keepTail: fc.boolean(),
    });
    let offered = 0;
    fc.assert(
      fc.property(edit, ({ example, cut, inserted, keepTail }) => {
        const [kind, source] = documents[example] as (typeof documents)[number];
        const at = Math.floor(cut * source.length);
        const text = source.slice(0, at) + inserted + (keepTail ? source.slice(at) : '');
        const before = text.slice(0, at + inserted.length).split(/\r\n|\r|\n/);
        const position = { line: before.length - 1, character: (before[before.length - 1] as string).length };
        const length = (text.split(/\r\n|\r|\n/)[position.line] as string).length;
        const context: FeatureContext = {
          kind,
          text,
          partials: ['testing.md'],
          readPartial: () => 'x',
          hubYaml: HUB_YAML,
        };
        for (const item of completeAt(context, position)) {
          offered += 1;
          const range = (item.textEdit as { range: Range } | undefined)?.range;
          expect(range !== undefined && within(range, position, length)).toBe(true);
        }
        const shown = hoverAt(context, position);
        if (shown?.range !== undefined) expect(shown.range.start.line).toBe(position.line);
      }),
      { numRuns: 500 },
    );
    // Not vacuous: the edits leave the cursor where completion has something to offer, often.
    expect(offered).toBeGreaterThan(20);
  });
});
