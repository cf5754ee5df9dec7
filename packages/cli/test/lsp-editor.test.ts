// `hub lsp --stdio` under what real editors do: workspace folders that are not the repository,
// none at all, URIs with spaces, escapes and non-ASCII names, untitled buffers, incremental edits
// in UTF-16 over astral characters and CRLF, bursts of edits, files closed, deleted or linked,
// a huge configuration, and a shutdown in the middle of a check.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeAction, CompletionItem, CompletionList, Diagnostic, Range } from 'vscode-languageserver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configurationYaml, triggerYaml } from './support/documents.js';
import { startLsp, uriOf, type LspClient } from './support/lsp.js';
import { hubIn, writeTree } from './support/repo.js';

let base: string;
let client: LspClient | undefined;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'hub-lsp-editor-'));
});

afterEach(() => {
  if (client !== undefined && client.child.exitCode === null) client.child.kill();
  client = undefined;
  rmSync(base, { recursive: true, force: true });
});

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((diagnostic) => String(diagnostic.code)).sort();
const BROKEN = configurationYaml([]).replace('environment: laptop', 'environment: lapto');

/** `text` with `range` (0-based UTF-16, line breaks \n, \r\n or \r) replaced by `newText`, computed apart from the server. */
function applied(text: string, range: Range, newText: string): string {
  const offset = (line: number, character: number) => {
    let at = 0;
    for (let seen = 0; seen < line; seen++) {
      const next = text.slice(at).search(/\r\n|\r|\n/);
      at += next + (text.startsWith('\r\n', at + next) ? 2 : 1);
    }
    return at + character;
  };
  return (
    text.slice(0, offset(range.start.line, range.start.character)) +
    newText +
    text.slice(offset(range.end.line, range.end.character))
  );
}

describe('workspace folders', () => {
  it('checks the repositories under a folder that is their parent, and the repository above a folder that is a subdirectory', async () => {
    writeTree(base, {
      'one/.hub/config.yml': BROKEN,
      'nested/two/.git/HEAD': 'ref: refs/heads/main\n',
      'nested/two/.hub/triggers/t.yml': triggerYaml('t').replace('filters:', 'filter:'),
    });
    writeTree(base, { 'three/.hub/config.yml': BROKEN, 'three/src/main.ts': '' });
    client = await startLsp(base, { folders: [base, join(base, 'three/src')] });
    expect(
      codes(await client.diagnostics(uriOf(join(base, 'one/.hub/config.yml')), (list) => list.length > 0)),
    ).toEqual(['step.unknown_environment']);
    expect(
      codes(await client.diagnostics(uriOf(join(base, 'nested/two/.hub/triggers/t.yml')), (list) => list.length > 0)),
    ).toContain('schema.unknown_key');
    expect(
      codes(await client.diagnostics(uriOf(join(base, 'three/.hub/config.yml')), (list) => list.length > 0)),
    ).toEqual(['step.unknown_environment']);
  });

  it('with no folder at all, checks a file opened from a repository, and ignores untitled buffers', async () => {
    writeTree(base, { 'repo/.hub/config.yml': configurationYaml([]) });
    client = await startLsp(base, { folders: null });
    const uri = uriOf(join(base, 'repo/.hub/config.yml'));
    await client.open('untitled:Untitled-1', BROKEN);
    await client.open(uri, BROKEN);
    expect(codes(await client.diagnostics(uri, (list) => list.length > 0))).toEqual(['step.unknown_environment']);
    const completion = await client.connection.sendRequest<CompletionItem[] | CompletionList | null>(
      'textDocument/completion',
      { textDocument: { uri: 'untitled:Untitled-1' }, position: { line: 0, character: 0 } },
    );
    expect(Array.isArray(completion) ? completion : (completion?.items ?? [])).toEqual([]);
    expect(client.published.filter((params) => params.uri.startsWith('untitled:'))).toEqual([]);
  });

  it('publishes on the URI the editor opened, spelled as it spelled it (escapes, spaces, non-ASCII)', async () => {
    const dir = join(base, 'c++ (x)', 'é ü');
    writeTree(dir, {
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Test {{ promt }}\n',
    });
    client = await startLsp(dir);
    // As VS Code spells a path: every reserved character escaped, which Node's file URLs leave as they are.
    const spelled = (path: string) =>
      `file://${path
        .split('/')
        .map((segment) => encodeURIComponent(segment))
        .join('/')}`;
    const config = spelled(join(dir, '.hub/config.yml'));
    expect(config).not.toBe(uriOf(join(dir, '.hub/config.yml')));
    await client.open(config, configurationYaml(['testing.md']).replace('environment: laptop', 'environment: lapto'));
    expect(codes(await client.diagnostics(config, (list) => list.length > 0))).toEqual(['step.unknown_environment']);
    // The partial is not open: it is published under its file URI, which names the same file.
    expect(
      codes(await client.diagnostics(uriOf(join(dir, '.hub/partials/testing.md')), (list) => list.length > 0)),
    ).toEqual(['template.unknown_placeholder']);
  });

  it('checks a document opened between initialize and initialized', async () => {
    writeTree(base, { '.hub/config.yml': configurationYaml([]) });
    const uri = uriOf(join(base, '.hub/config.yml'));
    client = await startLsp(base, {
      beforeInitialized: (connection) =>
        connection.sendNotification('textDocument/didOpen', {
          textDocument: { uri, languageId: 'yaml', version: 1, text: BROKEN },
        }),
    });
    expect(codes(await client.diagnostics(uri, (list) => list.length > 0))).toEqual(['step.unknown_environment']);
  });
});

describe('edits', () => {
  it('applies incremental edits in UTF-16 over astral characters and CRLF, and fixes exactly the diagnostic’s range, quotes kept', async () => {
    const text = configurationYaml([])
      .replace('environment: laptop', "environment: 'laptop' # 😀")
      .replace('Fix the failing', '𝄞 😀 Fix the failing')
      .split('\n')
      .join('\r\n');
    writeTree(base, { '.hub/config.yml': text });
    client = await startLsp(base);
    const uri = uriOf(join(base, '.hub/config.yml'));
    await client.open(uri, text);
    await client.diagnostics(uri, (list) => list.length === 0);
    const lines = text.split('\r\n');
    const envLine = lines.findIndex((line) => line.includes("'laptop'"));
    const promptLine = lines.findIndex((line) => line.includes('𝄞'));
    // Delete the "p" of 'laptop' and write a placeholder after the astral characters of the prompt: two ranges, one change each.
    const p = lines[envLine]!.indexOf("p'");
    const afterAstral = lines[promptLine]!.indexOf('Fix');
    const changes = [
      { range: { start: { line: envLine, character: p }, end: { line: envLine, character: p + 1 } }, text: '' },
      {
        range: {
          start: { line: promptLine, character: afterAstral },
          end: { line: promptLine, character: afterAstral },
        },
        text: '{{ inputs.x }} ',
      },
      // A line inserted with CRLF, at the start of the first line (a comment).
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# 😀\r\n' },
    ];
    let expected = text;
    for (const change of changes) expected = applied(expected, change.range, change.text);
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: changes,
    });
    const published = await client.diagnostics(uri, (list) => list.length === 2);
    const after = expected.split('\r\n');
    const environment = published.find((diagnostic) => diagnostic.code === 'step.unknown_environment')!;
    const placeholder = published.find((diagnostic) => diagnostic.code === 'template.unknown_placeholder')!;
    expect(environment.range).toEqual({
      start: { line: envLine + 1, character: after[envLine + 1]!.indexOf("'lapto'") },
      end: { line: envLine + 1, character: after[envLine + 1]!.indexOf("'lapto'") + 7 },
    });
    expect(placeholder.range.start).toEqual({
      line: promptLine + 1,
      character: after[promptLine + 1]!.indexOf('{{ inputs.x }}'),
    });
    const [action] = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: environment.range,
      context: { diagnostics: [environment] },
    });
    const edit = action!.edit!.changes![uri]![0]!;
    expect(edit).toEqual({ range: environment.range, newText: "'laptop'" });
    expect(applied(expected, edit.range, edit.newText)).toBe(
      applied(text, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, '# 😀\r\n').replace(
        '𝄞 😀 Fix',
        '𝄞 😀 {{ inputs.x }} Fix',
      ),
    );
  });

  it('after a burst of 100 edits, publishes the last version’s diagnostics, and nothing older after them', async () => {
    writeTree(base, { '.hub/config.yml': configurationYaml([]) });
    client = await startLsp(base);
    const uri = uriOf(join(base, '.hub/config.yml'));
    await client.open(uri, configurationYaml([]));
    await client.diagnostics(uri, (list) => list.length === 0);
    const broken = (n: number) => configurationYaml([]).replace('environment: laptop', `environment: lapto${n}`);
    for (let version = 2; version <= 101; version++) void client.change(uri, version, broken(version));
    const last = await client.diagnostics(
      uri,
      (list) => list.length === 1 && String(list[0]!.message).includes('"lapto101"'),
    );
    expect(last[0]!.code).toBe('step.unknown_environment');
    // A request answered after the last edit: any check still due would have run before it.
    await client.connection.sendRequest('textDocument/hover', {
      textDocument: { uri },
      position: { line: 0, character: 0 },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = client.published.filter((params) => params.uri === uri);
    expect(mine.at(-1)!.diagnostics).toEqual(last);
  });

  it('restores the disk’s view when a file is closed, also after it was deleted on disk while open', async () => {
    writeTree(base, { '.hub/config.yml': configurationYaml([]), '.hub/triggers/t.yml': triggerYaml('t') });
    client = await startLsp(base);
    const config = uriOf(join(base, '.hub/config.yml'));
    const trigger = uriOf(join(base, '.hub/triggers/t.yml'));
    await client.open(config, BROKEN);
    await client.diagnostics(config, (list) => list.length === 1);
    await client.close(config);
    await client.diagnostics(config, (list) => list.length === 0);
    await client.open(trigger, triggerYaml('t').replace('filters:', 'filter:'));
    await client.diagnostics(trigger, (list) => list.length > 0);
    unlinkSync(join(base, '.hub/triggers/t.yml'));
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: trigger, type: 3 }],
    });
    // Still open: the buffer is what the editor shows.
    await client.change(trigger, 2, triggerYaml('t').replace('filters:', 'filtre:'));
    await client.diagnostics(trigger, (list) =>
      list.some((diagnostic) => String(diagnostic.message).includes('filtre')),
    );
    await client.close(trigger);
    await client.diagnostics(trigger, (list) => list.length === 0);
  });
});

describe('files as they lie on disk', () => {
  it('rechecks when a directory is deleted and reported alone (.hub/partials, then .hub), as editors report it', async () => {
    writeTree(base, {
      '.hub/config.yml': BROKEN.replace('{{ prompt }}"', '{{ prompt }}"\n          - include: testing.md'),
      '.hub/partials/testing.md': 'Test {{ promt }}\n',
    });
    client = await startLsp(base);
    const config = uriOf(join(base, '.hub/config.yml'));
    const partial = uriOf(join(base, '.hub/partials/testing.md'));
    expect(codes(await client.diagnostics(partial, (list) => list.length > 0))).toEqual([
      'template.unknown_placeholder',
    ]);
    expect(codes(await client.diagnostics(config, (list) => list.length > 0))).toEqual(['step.unknown_environment']);
    rmSync(join(base, '.hub/partials'), { recursive: true });
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uriOf(join(base, '.hub/partials')), type: 3 }],
    });
    await client.diagnostics(partial, (list) => list.length === 0);
    expect(codes(await client.diagnostics(config, (list) => list.length === 2))).toEqual([
      'partial.missing',
      'step.unknown_environment',
    ]);
    rmSync(join(base, '.hub'), { recursive: true });
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uriOf(join(base, '.hub')), type: 3 }],
    });
    await client.diagnostics(config, (list) => list.length === 0);
  });

  it('rechecks the repositories under a folder deleted and reported alone', async () => {
    writeTree(base, { 'repos/one/.hub/config.yml': BROKEN });
    client = await startLsp(base);
    const config = uriOf(join(base, 'repos/one/.hub/config.yml'));
    await client.diagnostics(config, (list) => list.length === 1);
    rmSync(join(base, 'repos'), { recursive: true });
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uriOf(join(base, 'repos')), type: 3 }],
    });
    await client.diagnostics(config, (list) => list.length === 0);
  });

  it('reads a partial and a trigger that are symbolic links within the repository, and a directory named like a partial as hub validate does', async () => {
    const yaml = configurationYaml(['linked.md', 'folder.md']);
    writeTree(base, {
      'repo/.hub/config.yml': yaml,
      'repo/shared/linked.md': 'Linked {{ promt }}\n',
      'repo/shared/t.yml': triggerYaml('t').replace('filters:', 'filter:'),
    });
    mkdirSync(join(base, 'repo/.hub/partials/folder.md'), { recursive: true });
    mkdirSync(join(base, 'repo/.hub/triggers'), { recursive: true });
    symlinkSync(join(base, 'repo/shared/linked.md'), join(base, 'repo/.hub/partials/linked.md'));
    symlinkSync(join(base, 'repo/shared/t.yml'), join(base, 'repo/.hub/triggers/t.yml'));
    const root = join(base, 'repo');
    const validated = JSON.parse((await hubIn(root, ['validate', '--json'])).stdout) as {
      issues: { file: string; code: string }[];
    };
    const want = (file: string) =>
      validated.issues
        .filter((issue) => issue.file === file)
        .map((issue) => issue.code)
        .sort();
    expect(want('.hub/partials/linked.md')).toEqual(['template.unknown_placeholder']);
    expect(want('.hub/config.yml')).toEqual(['partial.missing']);
    expect(want('.hub/triggers/t.yml').length).toBeGreaterThan(0);
    client = await startLsp(root);
    for (const file of ['.hub/partials/linked.md', '.hub/config.yml', '.hub/triggers/t.yml']) {
      expect(codes(await client.diagnostics(uriOf(join(root, file)), (list) => list.length > 0))).toEqual(want(file));
    }
    // Hover on the include of the linked partial shows its first lines.
    const uri = uriOf(join(root, '.hub/config.yml'));
    await client.open(uri, yaml);
    const line = yaml.split('\n').findIndex((text) => text.includes('include: linked.md'));
    const hovered = await client.connection.sendRequest<{ contents: { value: string } } | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line, character: yaml.split('\n')[line]!.indexOf('linked.md') + 2 },
    });
    expect(hovered?.contents.value).toContain('Linked {{ promt }}');
  });
});

describe('many partials', () => {
  it('offers the compiler the partial names hub validate offers (its "did you mean")', async () => {
    // More partials than are offered (200), in directories read before the one at the top.
    const files: Record<string, string> = {
      '.hub/config.yml': configurationYaml(['z-targt.md']),
      '.hub/partials/z-target.md': 'Target.\n',
    };
    for (const dir of ['a1', 'a2', 'a3', 'a4', 'a5'])
      for (let n = 0; n < 60; n++) files[`.hub/partials/${dir}/p${n}.md`] = 'x\n';
    writeTree(base, files);
    const validated = JSON.parse((await hubIn(base, ['validate', '--json'])).stdout) as {
      issues: { code: string; message: string }[];
    };
    expect(validated.issues).toEqual([
      expect.objectContaining({
        code: 'partial.missing',
        message: expect.stringContaining('did you mean "z-target.md"'),
      }),
    ]);
    client = await startLsp(base);
    const [diagnostic] = await client.diagnostics(uriOf(join(base, '.hub/config.yml')), (list) => list.length > 0);
    expect(diagnostic!.message).toBe(validated.issues[0]!.message);
  });
});

describe('a configuration of almost 1 MB', () => {
  it('is checked, and completion is answered while its check is pending and after it', async () => {
    const step = (n: number) =>
      `      - id: s${n}\n        environment: laptop\n        agent: { provider: claude }\n        prompt: [{ text: "Step ${n} of a long list of steps, each with some words. {{ prompt }}" }]\n`;
    let steps = '';
    for (let n = 0; steps.length < 980_000; n++) steps += step(n);
    const yaml = configurationYaml([]).replace(
      /    steps:\n[\s\S]*$/,
      `    steps:\n${steps}      - id: last\n        environment: lapto\n        agent: { provider: claude }\n        prompt: [{ text: hi }]\n`,
    );
    writeTree(base, { '.hub/config.yml': configurationYaml([]) });
    client = await startLsp(base);
    const uri = uriOf(join(base, '.hub/config.yml'));
    await client.diagnostics(uri, (list) => list.length === 0);
    await client.open(uri, yaml);
    const line = yaml.split('\n').findIndex((text) => text.includes('environment: lapto'));
    const position = { line, character: '        environment: '.length };
    const during = await client.connection.sendRequest<CompletionItem[] | CompletionList | null>(
      'textDocument/completion',
      { textDocument: { uri }, position },
    );
    const items = (answer: CompletionItem[] | CompletionList | null) =>
      (Array.isArray(answer) ? answer : (answer?.items ?? [])).map((item) => item.label);
    expect(items(during)).toContain('laptop');
    const published = await client.diagnostics(uri, (list) => list.length > 0, 60_000);
    // Just under the compiler's 1,000,000 characters: compiled whole, not refused by length.
    expect(yaml.length).toBeLessThan(1_000_000);
    expect(codes(published)).toEqual(['step.unknown_environment']);
    const after = await client.connection.sendRequest<CompletionItem[] | CompletionList | null>(
      'textDocument/completion',
      { textDocument: { uri }, position },
    );
    expect(items(after)).toContain('laptop');
  }, 90_000);
});

describe('shutdown', () => {
  it('exits when told to while the hub is still asked about resources (a hub that does not answer)', async () => {
    const asked: IncomingMessage[] = [];
    const silent = createServer((request) => void asked.push(request));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      writeTree(base, { '.hub/triggers/t.yml': triggerYaml('t') });
      client = await startLsp(base, {
        env: { HUB_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, HUB_API_KEY: 'hub_test_key' },
      });
      await client.diagnostics(uriOf(join(base, '.hub/triggers/t.yml')), (list) => list.length === 0);
      await expect.poll(() => asked.length, { timeout: 20_000 }).toBeGreaterThan(0);
      // The request is never answered: exit must not wait for it (30 s, the client's own limit).
      expect(await client.stop()).toBe(0);
      expect(asked[0]!.url).toContain('validate');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  }, 25_000);

  it('exits 0 when shut down while a check is pending', async () => {
    writeTree(base, { '.hub/config.yml': configurationYaml([]) });
    client = await startLsp(base);
    const uri = uriOf(join(base, '.hub/config.yml'));
    await client.open(uri, BROKEN);
    expect(await client.stop()).toBe(0);
    expect(client.stderr()).toBe('');
  });
});
