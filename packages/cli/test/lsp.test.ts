// `hub lsp --stdio` as an editor runs it: the bundled CLI as a child process, LSP over its
// standard streams. Diagnostics are the compiler's issues (compiled here too, in-process, for
// the expected codes and positions), on the file each is in, at 0-based UTF-16 ranges.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileBundle, compileConfiguration, type Issue } from '@hub/compiler';
import type { CodeAction, Diagnostic } from 'vscode-languageserver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unreadNote } from '../src/lsp/workspace.js';
import { hub } from './support/cli.js';
import { configurationYaml, HUB_YML, triggerYaml, workflowYaml } from './support/documents.js';
import { startLsp, uriOf, type LspClient } from './support/lsp.js';
import { writeTree } from './support/repo.js';

let root: string;
let client: LspClient | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-lsp-'));
});

afterEach(async () => {
  if (client !== undefined && client.child.exitCode === null) client.child.kill();
  client = undefined;
  rmSync(root, { recursive: true, force: true });
});

const at = (path: string) => uriOf(join(root, path));

/** The 0-based UTF-16 start of the compiler's 1-based code-point position, computed apart from the server's code. */
function expectedStart(text: string, issue: Issue): { line: number; character: number } {
  const line = text.split(/\r\n|\r|\n/)[(issue.line ?? 1) - 1] ?? '';
  return {
    line: (issue.line ?? 1) - 1,
    character: Array.from(line)
      .slice(0, (issue.column ?? 1) - 1)
      .join('').length,
  };
}

/** What a diagnostic's range covers in `text`. */
function covered(text: string, diagnostic: Diagnostic): string {
  const line = text.split(/\r\n|\r|\n/)[diagnostic.range.start.line] ?? '';
  return line.slice(diagnostic.range.start.character, diagnostic.range.end.character);
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((diagnostic) => diagnostic.code).sort();

/** A configuration with a mistyped environment after an astral character on the same line, and an unknown placeholder after one on the line before. */
const BROKEN = `${configurationYaml([])
  .replace('environment: laptop', 'environment: lapto # 😀 x')
  .replace('"Fix the failing tests. {{ prompt }}"', '"𝄞 Fix 😀 {{ inputs.nme }} the tests. {{ prompt }}"')}`;

describe('hub lsp --stdio', () => {
  it('publishes the compiler’s issues of the configuration at its positions, as UTF-16 ranges of the token', async () => {
    writeTree(root, { '.hub/config.yml': BROKEN });
    const compiled = compileConfiguration({ yaml: BROKEN, partials: [] });
    expect(compiled.ok).toBe(false);
    const issues = compiled.ok ? [] : compiled.issues;
    expect(issues.map((issue) => issue.code).sort()).toEqual([
      'step.unknown_environment',
      'template.unknown_placeholder',
    ]);
    client = await startLsp(root);
    // Not opened: the workspace's files are checked from the disk at start.
    const published = await client.diagnostics(at('.hub/config.yml'), (list) => list.length > 0);
    expect(codes(published)).toEqual(issues.map((issue) => issue.code).sort());
    for (const issue of issues) {
      const diagnostic = published.find((candidate) => candidate.code === issue.code)!;
      expect(diagnostic.range.start).toEqual(expectedStart(BROKEN, issue));
      expect(diagnostic).toMatchObject({ source: 'hub', severity: 1, message: issue.message });
    }
    const [environment, placeholder] = ['step.unknown_environment', 'template.unknown_placeholder'].map((code) =>
      published.find((candidate) => candidate.code === code)!,
    );
    expect(covered(BROKEN, environment!)).toBe('lapto');
    expect(covered(BROKEN, placeholder!)).toBe('{{ inputs.nme }}');
    // The astral characters before each token count two UTF-16 units each (not one code point).
    expect(placeholder!.range.start.character).toBe(
      BROKEN.split('\n')[placeholder!.range.start.line]!.indexOf('{{ inputs'),
    );
  });

  it('checks an open buffer instead of the disk, and clears the diagnostics once it is fixed', async () => {
    const valid = configurationYaml([]);
    writeTree(root, { '.hub/config.yml': valid });
    client = await startLsp(root);
    const uri = at('.hub/config.yml');
    await client.diagnostics(uri, (list) => list.length === 0);
    await client.open(uri, BROKEN);
    expect(codes(await client.diagnostics(uri, (list) => list.length === 2))).toEqual([
      'step.unknown_environment',
      'template.unknown_placeholder',
    ]);
    expect(readFileSync(join(root, '.hub/config.yml'), 'utf8')).toBe(valid);
    await client.change(uri, 2, BROKEN.replace('lapto #', 'laptop #'));
    expect(codes(await client.diagnostics(uri, (list) => list.length === 1))).toEqual(['template.unknown_placeholder']);
    await client.change(uri, 3, valid);
    await client.diagnostics(uri, (list) => list.length === 0);
    // Closed with its buffer broken: the disk (valid) counts again.
    await client.change(uri, 4, BROKEN);
    await client.diagnostics(uri, (list) => list.length === 2);
    await client.close(uri);
    await client.diagnostics(uri, (list) => list.length === 0);
    expect(await client.stop()).toBe(0);
  });

  it('publishes an issue in a partial on the partial, from the partial’s unsaved buffer', async () => {
    writeTree(root, {
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Run the tests.\n',
    });
    client = await startLsp(root);
    const config = at('.hub/config.yml');
    const partial = at('.hub/partials/testing.md');
    await client.diagnostics(partial, (list) => list.length === 0);
    const text = 'Run the tests.\n😀 then {{ promt }}\n';
    await client.open(partial, text);
    const published = await client.diagnostics(partial, (list) => list.length === 1);
    const compiled = compileConfiguration({
      yaml: configurationYaml(['testing.md']),
      partials: [{ path: 'testing.md', content: text }],
    });
    const issue = compiled.ok ? undefined : compiled.issues[0];
    expect(issue).toMatchObject({ code: 'template.unknown_placeholder', file: 'testing.md' });
    expect(published[0]).toMatchObject({ code: issue!.code, range: { start: expectedStart(text, issue!) } });
    expect(covered(text, published[0]!)).toBe('{{ promt }}');
    expect(client.latest(config)).toEqual([]);
  });

  it('reports a misspelled include on the configuration, with a quick fix to the partial that exists', async () => {
    const yaml = configurationYaml(['testin.md']);
    writeTree(root, { '.hub/config.yml': yaml, '.hub/partials/testing.md': 'Test.\n' });
    client = await startLsp(root);
    const uri = at('.hub/config.yml');
    await client.open(uri, yaml);
    const [diagnostic] = await client.diagnostics(uri, (list) => list.length === 1);
    expect(diagnostic).toMatchObject({ code: 'partial.missing' });
    expect(covered(yaml, diagnostic!)).toBe('testin.md');
    const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic!.range,
      context: { diagnostics: [diagnostic] },
    });
    expect(actions).toEqual([
      expect.objectContaining({
        title: 'Change to testing.md',
        kind: 'quickfix',
        edit: { changes: { [uri]: [{ range: diagnostic!.range, newText: 'testing.md' }] } },
      }),
    ]);
  });

  it('offers the fix of a legacy workflow’s misspelled include as the include writes it', async () => {
    const workflow = workflowYaml('review', ['partials/revew.md']);
    writeTree(root, {
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': workflow,
      '.hub/workflows/partials/review.md': 'Review.\n',
    });
    client = await startLsp(root);
    const uri = at('.hub/workflows/review.yml');
    await client.open(uri, workflow);
    const [diagnostic] = await client.diagnostics(uri, (list) => list.some((item) => item.code === 'partial.missing'));
    expect(covered(workflow, diagnostic!)).toBe('partials/revew.md');
    const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic!.range,
      context: { diagnostics: [diagnostic] },
    });
    expect(actions.map((action) => action.edit?.changes?.[uri])).toEqual([
      [{ range: diagnostic!.range, newText: 'partials/review.md' }],
    ]);
  });

  it('clears a partial that is no longer included, and sees a file created on disk when told of it', async () => {
    const config = configurationYaml(['testing.md']);
    writeTree(root, { '.hub/config.yml': config, '.hub/partials/testing.md': 'Then {{ promt }}.\n' });
    client = await startLsp(root, {
      capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    });
    const uri = at('.hub/config.yml');
    const partial = at('.hub/partials/testing.md');
    expect(codes(await client.diagnostics(partial, (list) => list.length > 0))).toEqual([
      'template.unknown_placeholder',
    ]);
    await client.open(uri, config);
    await client.change(uri, 2, configurationYaml(['other.md']));
    expect(codes(await client.diagnostics(uri, (list) => list.length > 0))).toEqual(['partial.missing']);
    await client.diagnostics(partial, (list) => list.length === 0);
    expect(client.registrations).toEqual([
      expect.objectContaining({
        method: 'workspace/didChangeWatchedFiles',
        registerOptions: { watchers: [{ globPattern: '**/.hub/**' }, { globPattern: '**/.hub' }] },
      }),
    ]);
    writeTree(root, { '.hub/partials/other.md': 'Other.\n' });
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: at('.hub/partials/other.md'), type: 1 }],
    });
    await client.diagnostics(uri, (list) => list.length === 0);
    // The partial's own (empty) diagnostics come on their own, in no set order with the configuration's.
    expect(await client.diagnostics(at('.hub/partials/other.md'), (list) => list.length === 0)).toEqual([]);
  });

  it('checks the triggers of a directory together (a duplicate name) and a legacy bundle’s workflows', async () => {
    const workflow = workflowYaml('review', []).replace('agent: reviewer', 'agent: reviewr');
    writeTree(root, {
      '.hub/triggers/a.yml': triggerYaml('nightly'),
      '.hub/triggers/b.yml': triggerYaml('nightly'),
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': workflow,
    });
    client = await startLsp(root);
    expect(codes(await client.diagnostics(at('.hub/triggers/b.yml'), (list) => list.length > 0))).toEqual([
      'trigger.duplicate_name',
    ]);
    expect(client.latest(at('.hub/triggers/a.yml'))).toEqual([]);
    const compiled = compileBundle({
      files: [
        { path: '.hub/hub.yml', content: HUB_YML },
        { path: '.hub/workflows/review.yml', content: workflow },
      ],
    });
    const issues = compiled.ok ? compiled.warnings : compiled.issues;
    expect(issues.length).toBeGreaterThan(0);
    const published = await client.diagnostics(at('.hub/workflows/review.yml'), (list) => list.length > 0);
    expect(codes(published)).toEqual(issues.map((issue) => issue.code).sort());
    expect(client.latest(at('.hub/hub.yml'))).toEqual([]);
  });

  it('says on an open .yaml trigger (or one in .hub/workflow/) that it is not read and what to rename it to, and clears that when it is closed', async () => {
    writeTree(root, {
      '.hub/triggers/n.yaml': triggerYaml('n'),
      '.hub/config.yaml': configurationYaml([]),
      '.hub/workflow/a.yml': triggerYaml('a'),
    });
    client = await startLsp(root);
    const notes = [
      ['.hub/triggers/n.yaml', 'rename it to n.yml'],
      ['.hub/config.yaml', 'rename it to config.yml'],
      // .hub/triggers/ is there: .hub/trigger/ would be no near miss of it, .hub/workflow/ is one of workflows/.
      ['.hub/workflow/a.yml', 'did you mean .hub/workflows/?'],
    ] as const;
    for (const [file, said] of notes) {
      const uri = at(file);
      await client.open(uri, readFileSync(join(root, file), 'utf8'));
      const [note, ...more] = await client.diagnostics(uri, (list) => list.length > 0);
      expect(more).toEqual([]);
      expect(note?.severity).toBe(2);
      expect(note?.message).toContain(said);
      // Over the whole first line: an empty range is not drawn by every editor.
      expect(note?.range).toEqual({
        start: { line: 0, character: 0 },
        end: { line: 0, character: readFileSync(join(root, file), 'utf8').split('\n')[0]!.length },
      });
      expect(note?.range.end.character).toBeGreaterThan(0);
      await client.close(uri);
      await client.diagnostics(uri, (list) => list.length === 0);
    }
  });

  it('names itself and its version (hub --version’s) to the editor', async () => {
    client = await startLsp(root);
    expect((await hub(['--version'])).stdout).toBe(`${client.initialized.serverInfo?.version}\n`);
    expect(client.initialized.serverInfo?.name).toBe('hub');
  });

  it('survives documents no editor should send and still answers', async () => {
    writeTree(root, { '.hub/config.yml': configurationYaml([]) });
    client = await startLsp(root);
    const uri = at('.hub/config.yml');
    await client.open(uri, '\u0000\ud800: [');
    for (const [version, text] of ['{{{', '- - - - ]]]', 'a: &x [*x]', '['.repeat(5000), '\r\r\n\uFEFF'].entries())
      await client.change(uri, version + 2, text);
    await client.diagnostics(uri, (list) => list.length > 0);
    expect(
      await client.connection.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: { line: 9999, character: 9999 },
      }),
    ).toBeNull();
    expect(client.child.exitCode).toBeNull();
  });
});

describe('files under .hub that are not read', () => {
  it.each([
    ['.hub/triggers/n.yaml', 'trigger files end in .yml; rename it to n.yml'],
    ['.hub/workflows/review.yaml', 'workflow files end in .yml; rename it to review.yml'],
    ['.hub/config.yaml', 'rename it to config.yml'],
    ['.hub/hub.yaml', 'rename it to hub.yml'],
    ['.hub/partials/notes.yaml', undefined],
    ['.hub/triggers/deep/n.yaml', undefined],
    ['.hub/triggers/n.yml', undefined],
    ['elsewhere/n.yaml', undefined],
    ['.hub/trigger/a.yml', 'did you mean .hub/triggers/?'],
    ['.hub/trigger/a.yaml', 'did you mean .hub/triggers/?'],
    ['.hub/Partials/a.md', 'did you mean .hub/partials/?'],
    ['.hub/confg.yml', 'did you mean .hub/config.yml?'],
    // A name read is there already (triggers/ beside trigger/ is no near miss of it), or nothing is close.
    ['.hub/workflow/a.yml', undefined],
    ['.hub/scripts/a.yml', undefined],
    ['.hub/triggers/sub/a.yml', undefined],
  ])('%s', (file, said) => {
    mkdirSync(join(root, '.hub/workflows'), { recursive: true });
    const note = unreadNote(join(root, ...file.split('/')));
    if (said === undefined) expect(note).toBeUndefined();
    else expect(note).toContain(said);
  });
});

describe('hub lsp and a broken connection', () => {
  it('logs malformed messages and goes on; exits 0 after shutdown and exit', async () => {
    writeTree(root, { '.hub/config.yml': BROKEN });
    const raw = [
      '{}',
      '{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":null}',
      '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}',
    ];
    client = await startLsp(root, {
      raw: raw.map((body) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`).join(''),
    });
    expect(codes(await client.diagnostics(at('.hub/config.yml'), (list) => list.length > 0))).toEqual([
      'step.unknown_environment',
      'template.unknown_placeholder',
    ]);
    expect(await client.stop()).toBe(0);
    expect(client.stderr()).toBe('');
  });

  it('exits 1 when the editor goes away without shutdown, printing nothing', async () => {
    writeTree(root, { '.hub/config.yml': BROKEN });
    client = await startLsp(root, { raw: 'Content-Length: 2\r\n\r\n{}' });
    await client.diagnostics(at('.hub/config.yml'), (list) => list.length > 0);
    client.child.stdin?.end();
    expect(await client.exited).toBe(1);
    expect(client.stderr()).toBe('');
  });
});

describe('hub lsp (the command)', () => {
  it('--help says how editors start it', async () => {
    const { code, stdout } = await hub(['lsp', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: hub lsp --stdio$/m);
    expect(stdout).toMatch(/vim\.lsp\.start/);
    expect(stdout).toMatch(/languages\.toml/);
  });

  it('without --stdio is a usage error', async () => {
    const { code, stderr } = await hub(['lsp']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Give --stdio/);
  });
});

describe('completion and hover through hub lsp', () => {
  it('answer what the features answer in-process, with the document’s kind, partials and hub file', async () => {
    const { complete, hover } = await import('../src/lsp/features/index.js');
    const config = configurationYaml(['testing.md']).replace('environment: laptop', 'environment: ');
    const workflow = workflowYaml('review', []).replace('agent: reviewer', 'agent: ');
    writeTree(root, {
      '.hub/config.yml': config,
      '.hub/partials/testing.md': 'Run the tests first.\n',
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': workflow,
    });
    client = await startLsp(root);
    const lines = config.split('\n');
    const environmentAt = {
      line: lines.findIndex((line) => line.includes('environment: ')),
      character: lines.find((line) => line.includes('environment: '))!.length,
    };
    const includeAt = {
      line: lines.findIndex((line) => line.includes('include: testing.md')),
      character: lines.find((line) => line.includes('include: testing.md'))!.indexOf('testing') + 2,
    };
    const partials = ['testing.md'];
    const readPartial = (path: string) => (path === 'testing.md' ? 'Run the tests first.\n' : undefined);
    await client.open(at('.hub/config.yml'), config);
    const completion = await client.connection.sendRequest<unknown>('textDocument/completion', {
      textDocument: { uri: at('.hub/config.yml') },
      position: environmentAt,
    });
    const expected = complete({ kind: 'configuration', text: config, partials, readPartial }, environmentAt);
    expect(expected.map((item) => item.label)).toContain('laptop');
    expect(completion).toEqual(expected);
    const hovered = await client.connection.sendRequest<unknown>('textDocument/hover', {
      textDocument: { uri: at('.hub/config.yml') },
      position: includeAt,
    });
    const expectedHover = hover({ kind: 'configuration', text: config, partials, readPartial }, includeAt);
    expect(JSON.stringify(expectedHover)).toContain('Run the tests first.');
    expect(hovered).toEqual(expectedHover);

    const workflowLines = workflow.split('\n');
    const agentAt = {
      line: workflowLines.findIndex((line) => line.includes('agent: ')),
      character: workflowLines.find((line) => line.includes('agent: '))!.length,
    };
    await client.open(at('.hub/workflows/review.yml'), workflow);
    const agents = await client.connection.sendRequest<unknown>('textDocument/completion', {
      textDocument: { uri: at('.hub/workflows/review.yml') },
      position: agentAt,
    });
    const expectedAgents = complete(
      { kind: 'legacy-workflow', text: workflow, partials: [], readPartial: () => undefined, hubYaml: HUB_YML },
      agentAt,
    );
    expect(expectedAgents.map((item) => item.label)).toContain('reviewer');
    expect(agents).toEqual(expectedAgents);
  });
});
