// The GitHub kinds in the editor (src/lsp/features/): `on` completes to github.mention and
// github.label, github.label to its name; hover on those keys says what starts a run, the actor,
// the input text and the delivery key; {{ event.<name> }} completes and hovers where every kind of
// the trigger gives the value; a mention-only trigger's inputs complete inside {{ inputs. }}.
import type { CompletionItem, MarkupContent, Position } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import { complete, hover, type DocumentKind, type FeatureContext } from '../src/lsp/features/index.js';

const MARK = '‸';

function marked(source: string): { text: string; position: Position } {
  const at = source.indexOf(MARK);
  const before = source.slice(0, at);
  const line = before.split('\n').length - 1;
  return {
    text: before + source.slice(at + 1),
    position: { line, character: before.length - before.lastIndexOf('\n') - 1 },
  };
}

const context = (kind: DocumentKind, text: string): FeatureContext => ({
  kind,
  text,
  partials: [],
  readPartial: () => undefined,
});

function items(kind: DocumentKind, source: string): CompletionItem[] {
  const { text, position } = marked(source);
  return complete(context(kind, text), position);
}

const labels = (kind: DocumentKind, source: string) => items(kind, source).map((item) => item.label);

function hoverText(kind: DocumentKind, source: string): string | undefined {
  const { text, position } = marked(source);
  return (hover(context(kind, text), position)?.contents as MarkupContent | undefined)?.value;
}

/** A configuration whose one trigger has `on` (indented for its key) and a prompt text. */
const configuration = (on: string, text = 'Fix it.') => `environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ~/src/app }
triggers:
  - name: fix
    on:
${on}
    max_runtime: 1h
    filters: { from_users: [octocat] }
    steps:
      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: "${text}"
`;

const WORKFLOW = (on: string, text: string) => `name: review
on:
${on}
max_runtime: 1h
steps:
  - id: review
    prompt:
      - text: "${text}"
`;

describe('completion of the GitHub kinds', () => {
  it.each<[string, DocumentKind, string]>([
    ['a configuration', 'configuration', configuration(`      ${MARK}`)],
    ['a legacy workflow', 'legacy-workflow', `name: review\non:\n  ${MARK}\n`],
    ['a trigger document (whose compile refuses them)', 'trigger', `name: t\non:\n  ${MARK}\n`],
  ])('offers github.mention and github.label under on in %s', (_case, kind, source) => {
    expect(labels(kind, source)).toEqual(
      expect.arrayContaining(['manual.run', 'schedule', 'github.mention', 'github.label']),
    );
  });

  it('offers those not yet present, replacing the dotted word typed so far', () => {
    const found = items('configuration', configuration(`      github.label: { name: x }\n      github.m${MARK}`));
    expect(found.map((item) => item.label)).not.toContain('github.label');
    expect(found.find((item) => item.label === 'github.mention')?.textEdit).toEqual({
      newText: 'github.mention: ',
      range: { start: { line: 6, character: 6 }, end: { line: 6, character: 14 } },
    });
  });

  it.each([
    ['block', configuration(`      github.label:\n        ${MARK}`)],
    ['flow', configuration(`      github.label: { ${MARK} }`)],
  ])("offers github.label's name (%s), and inputs under github.mention", (_case, source) => {
    expect(labels('configuration', source)).toEqual(['name']);
    expect(labels('configuration', configuration(`      github.mention:\n        ${MARK}`))).toEqual(['inputs']);
  });
});

describe('hover on the GitHub kinds', () => {
  it('explains github.mention: what starts a run, the actor, the input text, the delivery key', () => {
    const shown = hoverText('configuration', configuration(`      github.men${MARK}tion:`));
    expect(shown).toMatch(/^\*\*github\.mention\*\*\n\n/);
    for (const part of [
      "mentions the hub's GitHub App with the trigger's name (@<app> <trigger> <input text>)",
      'The actor is the GitHub login that wrote it',
      'the input text is what follows @<app> <trigger>',
      'the delivery key is github:<X-GitHub-Delivery>',
      '`object` or `null`',
    ])
      expect(shown).toContain(part);
  });

  it('explains github.label, also as a flow key and in a legacy workflow', () => {
    const parts = [
      'a run starts when the label name is added to an issue or pull request',
      'The actor is the GitHub login that added it',
      'there is no input text, and {{ prompt }} is the title, a blank line, and the body',
      'the delivery key is github:<X-GitHub-Delivery>',
    ];
    const block = hoverText('legacy-workflow', `name: r\non:\n  github.la${MARK}bel:\n    name: x\n`);
    const flow = hoverText(
      'configuration',
      configuration(`      { manual.run: {}, github.la${MARK}bel: { name: x } }`).replace(
        '    on:\n      {',
        '    on: {',
      ),
    );
    for (const shown of [block, flow]) for (const part of parts) expect(shown).toContain(part);
  });

  it("explains a label's name", () => {
    expect(hoverText('configuration', configuration(`      github.label:\n        na${MARK}me: triage`))).toContain(
      'The label whose adding starts a run',
    );
  });
});

describe('{{ event.<name> }} in the editor', () => {
  const GITHUB = ['repository', 'number', 'title', 'url', 'kind', 'branch'];

  it.each([
    ['github.mention', '      github.mention:'],
    ['github.label', '      github.label: { name: x }'],
    ['both GitHub kinds', '      github.mention:\n      github.label: { name: x }'],
  ])('offers the values a %s trigger gives', (_case, on) => {
    expect(labels('configuration', configuration(on, `Fix {{ event.${MARK}`))).toEqual(GITHUB);
    expect(labels('configuration', configuration(on, `Fix {{ ${MARK}`))).toEqual([
      'prompt',
      ...GITHUB.map((name) => `event.${name}`),
    ]);
  });

  it.each([
    ['manual.run', '      manual.run: {}\n      github.mention:'],
    ['a schedule', '      github.label: { name: x }\n      schedule: [{ cron: "@daily" }]'],
  ])('offers none that %s does not give', (_case, on) => {
    expect(labels('configuration', configuration(on, `Fix {{ event.${MARK}`))).toEqual([]);
  });

  it("offers a schedule-only trigger's scheduled_at, and in a legacy workflow too", () => {
    expect(labels('configuration', configuration('      schedule: [{ cron: "@daily" }]', `{{ event.${MARK}`))).toEqual([
      'scheduled_at',
    ]);
    expect(labels('legacy-workflow', WORKFLOW('  github.label: { name: x }', `{{ event.ti${MARK}`))).toEqual(GITHUB);
  });

  it('replaces the name typed so far and closes the braces', () => {
    const found = items('configuration', configuration('      github.mention:', `{{ event.ur${MARK}`));
    expect(found.find((item) => item.label === 'url')?.textEdit).toEqual({
      newText: 'url }}',
      range: { start: { line: 13, character: 28 }, end: { line: 13, character: 30 } },
    });
  });

  it('hovers with what the value holds and which kinds give it', () => {
    expect(hoverText('configuration', configuration('      github.label: { name: x }', 'On {{ event.bra‸nch }}'))).toBe(
      "**{{ event.branch }}**\n\nA pull request's head branch; empty for an issue.\n\nGiven by `github.mention` and `github.label` runs.",
    );
    expect(hoverText('partial', 'As of {{ event.sched‸uled_at }}')).toContain('Given by `schedule` runs.');
  });

  it('shows nothing on a value a kind of the trigger does not give (its diagnostic says why)', () => {
    expect(hoverText('configuration', configuration('      manual.run: {}', 'On {{ event.ur‸l }}'))).toBeUndefined();
    expect(hoverText('configuration', configuration('      github.mention:', 'On {{ event.nope‸ }}'))).toBeUndefined();
  });
});

describe('inputs declared under github.mention', () => {
  it('complete inside {{ inputs. }} and hover like those of manual.run', () => {
    const on = '      github.mention:\n        inputs:\n          area: { description: Where to look, default: api }';
    expect(labels('configuration', configuration(on, `{{ inputs.${MARK}`))).toEqual(['area']);
    expect(hoverText('configuration', configuration(on, '{{ inputs.ar‸ea }}'))).toBe(
      '**{{ inputs.area }}**: declared input\n\nWhere to look\n\ndefault api',
    );
  });

  it("are a trigger document's too", () => {
    const trigger = `name: t\non:\n  github.mention:\n    inputs:\n      pr: {}\nrun:\n  agent:\n    prompt: "{{ inputs.${MARK}"\n`;
    expect(labels('trigger', trigger)).toEqual(['pr']);
  });
});
