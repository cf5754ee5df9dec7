// Editors without our language server: yaml-language-server (what VS Code's YAML extension,
// Neovim's yamlls and Helix run), headless over LSP, with the schemas the hub serves. On the
// examples it reports nothing; on broken documents its schema diagnostics agree with the
// compiler's schema issues. "Agree" means: the set of lines (1-based) holding a `schema.*` issue
// of the compiler (docs/issue-codes.md, "Schema") in that file equals the set of lines holding a
// diagnostic of yaml-language-server from that schema (`data.schemaUri` names it), with one
// convention told apart: a missing key (`schema.required`) in a mapping that is a key's value is
// marked by yaml-language-server at that key (`build:`), by the compiler at the mapping (its first
// key, the line after for a block mapping); there the test expects the key's line of
// yaml-language-server. Messages differ (ajv against vscode-json-languageservice's wording) and
// are not compared; neither is the number of diagnostics on a line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileBundle, compileConfiguration, compileTrigger, type Issue } from '@hub/compiler';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubOn } from './support/hub.js';

type MessageConnection = ReturnType<typeof createMessageConnection>;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = join(root, 'node_modules/yaml-language-server/bin/yaml-language-server');
const EXAMPLES = join(root, 'packages/schemas/examples');
// Each diagnosis waits up to 40 s (a loaded machine); a test makes at most two.
const TIMEOUT = 100_000;
// Each example names its schema by a path in the package on its first line; here the setting or the hub's URL does.
const example = (path: string) =>
  readFileSync(join(EXAMPLES, path), 'utf8').replace(/^# yaml-language-server: \$schema=\S+\n/, '');

interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  source?: string;
  /** The schemas the diagnostic comes from (yaml-language-server's own field). */
  data?: { schemaUri?: string[] };
}

/** Whether yaml-language-server found this against the schema at `url` (not, say, YAML syntax). */
const fromSchema = (diagnostic: Diagnostic, url: string) => diagnostic.data?.schemaUri?.includes(url) === true;

type Kind = 'configuration' | 'trigger' | 'legacy-hub' | 'legacy-workflow';

/** The example files, as a repository holds them, and which schema each is. */
const FILES: Record<Kind, { path: string; text: string }> = {
  configuration: { path: '.hub/config.yml', text: example('configuration.yml') },
  trigger: { path: '.hub/triggers/nightly-triage.yml', text: example('trigger.yml') },
  'legacy-hub': { path: '.hub/hub.yml', text: example('bundle/.hub/hub.yml') },
  'legacy-workflow': { path: '.hub/workflows/review.yml', text: example('bundle/.hub/workflows/review.yml') },
};
const PARTIAL = { path: 'testing.md', content: 'Run the tests.\n' };
const REVIEW_PARTIAL = {
  path: '.hub/workflows/partials/review.md',
  content: readFileSync(join(EXAMPLES, 'bundle/.hub/workflows/partials/review.md'), 'utf8'),
};

/**
 * The compiler's issues in `text` as the document of `kind` (a bundle's other files as in the
 * example), and the lines where yaml-language-server should mark its schema ones.
 */
function compilerIssues(kind: Kind, text: string): { codes: string[]; lines: number[] } {
  let issues: Issue[];
  if (kind === 'configuration') {
    const result = compileConfiguration({ yaml: text, partials: [PARTIAL] });
    issues = result.ok ? [] : result.issues.filter((issue) => issue.file === undefined);
  } else if (kind === 'trigger') {
    const result = compileTrigger({ yaml: text });
    issues = result.ok ? [] : result.issues;
  } else {
    const files = (['legacy-hub', 'legacy-workflow'] as const).map((other) => ({
      path: FILES[other].path,
      content: other === kind ? text : FILES[other].text,
    }));
    const result = compileBundle({ files: [...files, REVIEW_PARTIAL] });
    issues = result.ok ? [] : result.issues.filter((issue) => issue.file === FILES[kind].path);
  }
  const schema = issues.filter((issue) => issue.code.startsWith('schema.'));
  return { codes: issues.map((issue) => issue.code), lines: lines(schema.map((issue) => lineFor(text, issue))) };
}

/** The issue's line, but for a missing key in a key's value: the line of that key (yaml-language-server's convention). */
function lineFor(text: string, issue: Issue): number {
  const line = issue.line ?? 0;
  if (issue.code !== 'schema.required') return line;
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter });
  const segments = issue.pointer
    .split('/')
    .slice(1, -1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = document.contents;
  let keyAt: number | undefined;
  for (const segment of segments) {
    if (isSeq(node)) {
      node = node.items[Number(segment)];
      keyAt = undefined;
    } else if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      keyAt = (pair?.key as YamlNode | undefined)?.range?.[0];
      node = pair?.value;
    } else return line;
  }
  return keyAt === undefined ? line : counter.linePos(keyAt).line;
}

const lines = (list: number[]) => [...new Set(list)].sort((a, b) => a - b);

/** yaml-language-server: the child process, its connection, what it published per URI. */
interface Server {
  child: ChildProcess;
  connection: MessageConnection;
  latest: Map<string, Diagnostic[]>;
  stderr: () => string;
}

async function startServer(workspace: string, schemas: Record<string, string[]>): Promise<Server> {
  // No proxy from the environment: the schemas are fetched from the hub on 127.0.0.1.
  const child = spawn(process.execPath, [SERVER, '--stdio'], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '', HOME: workspace },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const latest = new Map<string, Diagnostic[]>();
  connection.onNotification(
    'textDocument/publishDiagnostics',
    (params: { uri: string; diagnostics: Diagnostic[] }) => void latest.set(params.uri, params.diagnostics),
  );
  connection.onNotification(() => undefined);
  // The settings it pulls: yaml, http, [yaml], editor. SchemaStore's catalog is off (no network).
  const settings = { validate: true, hover: true, completion: true, schemaStore: { enable: false }, schemas };
  connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) =>
    params.items.map((item) =>
      item.section === 'yaml' ? settings : item.section === 'http' ? { proxy: '', proxyStrictSSL: false } : {},
    ),
  );
  connection.onRequest(() => null);
  connection.listen();
  const uri = pathToFileURL(workspace).href;
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: 'repo' }],
    capabilities: {
      workspace: { configuration: true, workspaceFolders: true },
      textDocument: { publishDiagnostics: {} },
    },
  });
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  return { child, connection, latest, stderr: () => stderr };
}

describe('yaml-language-server with the schemas the hub serves', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let workspace: string;
  let server: Server;
  let cases = 0;
  const url = (kind: Kind) => `${hub.url}/schemas/${kind}.schema.json`;
  const uriOf = (path: string) => pathToFileURL(join(workspace, path)).href;

  beforeAll(async () => {
    hub = await hubOn('external');
    workspace = mkdtempSync(join(tmpdir(), 'hub-yls-'));
    // The VS Code `yaml.schemas` setting the README shows.
    server = await startServer(workspace, {
      [url('configuration')]: ['.hub/config.yml'],
      [url('trigger')]: ['.hub/triggers/*.yml'],
      [url('legacy-hub')]: ['.hub/hub.yml'],
      [url('legacy-workflow')]: ['.hub/workflows/*.yml'],
    });
    // Settings are pulled, and the schema fetched, after the first requests: wait until an unknown
    // key is reported, which takes both.
    const probe = `${FILES.trigger.text}unknown: 1\n`;
    const deadline = Date.now() + 60_000;
    let seen: Diagnostic[] = [];
    while (!seen.some((diagnostic) => fromSchema(diagnostic, url('trigger')))) {
      if (Date.now() > deadline)
        throw new Error(
          `yaml-language-server never reported the schema's issue: ${JSON.stringify(seen)}\n${server.stderr()}`,
        );
      seen = await diagnose(FILES.trigger.path, probe);
    }
  }, 120_000);

  afterAll(async () => {
    if (server !== undefined) {
      await server.connection.sendRequest('shutdown').catch(() => undefined);
      await server.connection.sendNotification('exit').catch(() => undefined);
      if (server.child.exitCode === null) server.child.kill();
      server.connection.dispose();
    }
    await hub?.close();
    if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
  });

  /** Opens `text` at `path`, in a directory of its own (a fresh URI), and waits for its diagnostics. */
  async function diagnose(path: string, text: string): Promise<Diagnostic[]> {
    const uri = uriOf(`case-${++cases}/${path}`);
    await server.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text },
    });
    const deadline = Date.now() + 40_000;
    for (;;) {
      const current = server.latest.get(uri);
      if (current !== undefined) {
        await server.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
        return current;
      }
      if (Date.now() > deadline) throw new Error(`no diagnostics for ${uri}\n${server.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it.each(Object.keys(FILES) as Kind[])(
    'reports nothing on the %s example, matched by `yaml.schemas`, but an unknown key added to it',
    async (kind) => {
      const { path, text } = FILES[kind];
      expect(compilerIssues(kind, text).codes).toEqual([]);
      expect(await diagnose(path, text)).toEqual([]);
      // The same file with one more key: the schema was applied (an unmatched file reports nothing either).
      const added = await diagnose(path, `${text}surplus: 1\n`);
      const last = text.split('\n').length - 1;
      expect(added.map((diagnostic) => [diagnostic.range.start.line, fromSchema(diagnostic, url(kind))])).toEqual([
        [last, true],
      ]);
      expect(compilerIssues(kind, `${text}surplus: 1\n`)).toEqual({ codes: ['schema.unknown_key'], lines: [last + 1] });
    },
    TIMEOUT,
  );

  /** A broken document: the example with each `[from, to]` replaced (each must be there). */
  const BROKEN: { kind: Kind; name: string; edits: [string, string][]; codes: string[] }[] = [
    {
      kind: 'configuration',
      name: 'an unknown key, and so a missing one',
      edits: [['    steps:\n', '    stpes:\n']],
      codes: ['schema.required', 'schema.unknown_key'],
    },
    {
      kind: 'configuration',
      name: 'a wrong type',
      edits: [['from_users: [dev-lead, ci-bot]', 'from_users: dev-lead']],
      codes: ['schema.type'],
    },
    {
      kind: 'configuration',
      name: 'a bad enum value',
      edits: [['kind: daemon', 'kind: deamon']],
      codes: ['schema.enum'],
    },
    {
      kind: 'configuration',
      name: 'a missing required key',
      edits: [['agent: { provider: claude, mode: edit }', 'agent: { mode: edit }']],
      codes: ['schema.required'],
    },
    {
      kind: 'trigger',
      name: 'a missing required key at the top',
      edits: [['name: nightly-triage\n', '']],
      codes: ['schema.required'],
    },
    {
      kind: 'trigger',
      name: 'a wrong type (YAML 1.2: yes is a string)',
      edits: [['enabled: true', 'enabled: yes']],
      codes: ['schema.type'],
    },
    {
      kind: 'trigger',
      name: 'a bad duration and a misspelled key',
      edits: [
        ['max_runtime: 30m', 'max_runtime: 30 minutes'],
        ['model: gpt-5', 'modle: gpt-5'],
      ],
      codes: ['schema.duration', 'schema.unknown_key'],
    },
    {
      kind: 'legacy-hub',
      name: 'a bad enum value and an unknown key',
      edits: [
        ['kind: daemon', 'kind: deamon'],
        ['    mode: review', '    mood: review'],
      ],
      codes: ['schema.enum', 'schema.unknown_key'],
    },
    {
      kind: 'legacy-hub',
      name: 'a missing required key',
      edits: [['    cwd: /srv/repo\n', '']],
      codes: ['schema.required'],
    },
    {
      kind: 'legacy-workflow',
      name: 'a missing required key and a wrong type',
      edits: [
        ['max_runtime: 1h\n', ''],
        ['required: true', 'required: "true"'],
      ],
      codes: ['schema.required', 'schema.type'],
    },
    {
      kind: 'legacy-workflow',
      name: 'an empty list and a bad name',
      edits: [
        [
          '    prompt:\n      - text: "Review pull request {{ inputs.pr }}. {{ prompt }}"\n      - include: partials/review.md\n',
          '    prompt: []\n',
        ],
        ['id: review', 'id: Review_1'],
      ],
      codes: ['schema.name', 'schema.too_few'],
    },
    {
      kind: 'configuration',
      name: 'several at once',
      edits: [
        ['kind: daemon', 'kind: deamon'],
        ['    max_runtime: 2h\n', '    max_runtime: 2 hours\n'],
        ['mode: edit', 'mode: edit, effort: high'],
      ],
      codes: ['schema.duration', 'schema.enum', 'schema.unknown_key'],
    },
  ];

  it.each(BROKEN)(
    '$kind with $name: the same lines as the compiler',
    async ({ kind, edits, codes }) => {
      let text = FILES[kind].text;
      for (const [from, to] of edits) {
        expect(text, from).toContain(from);
        text = text.replace(from, to);
      }
      const compiled = compilerIssues(kind, text);
      expect([...new Set(compiled.codes.filter((code) => code.startsWith('schema.')))].sort()).toEqual(codes);
      const diagnostics = await diagnose(FILES[kind].path, text);
      const schemaLines = lines(
        diagnostics
          .filter((diagnostic) => fromSchema(diagnostic, url(kind)))
          .map((diagnostic) => diagnostic.range.start.line + 1),
      );
      expect(schemaLines, JSON.stringify(diagnostics, null, 1)).toEqual(compiled.lines);
    },
    TIMEOUT,
  );

  it(
    'takes the schema from the `# yaml-language-server: $schema=` line, on a file no setting matches',
    async () => {
      const text = `# yaml-language-server: $schema=${url('trigger')}\n${FILES.trigger.text.replace('enabled: true', 'enabled: 1')}`;
      const diagnostics = await diagnose('elsewhere/nightly.yml', text);
      expect(compilerIssues('trigger', text)).toEqual({ codes: ['schema.type'], lines: [3] });
      expect(
        diagnostics.map((diagnostic) => [diagnostic.range.start.line + 1, fromSchema(diagnostic, url('trigger'))]),
      ).toEqual([[3, true]]);
    },
    TIMEOUT,
  );
});
