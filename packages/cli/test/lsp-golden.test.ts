// Differential: what `hub lsp --stdio` (the bundled child process) publishes for every golden
// case of test-fixtures/ and the schema package's examples equals what `hub validate --json`
// reports for the same repositories: the same codes, severities and messages on the same files, positions
// converted (1-based code points → 0-based UTF-16, counted here apart from the server's code).
// All cases are laid out side by side, each its own repository and workspace folder of one
// server, and validated in one run (a process costs ~0.5 s).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixtures, type Fixture } from '../../../test-fixtures/load.js';
import { startLsp, uriOf, type LspClient } from './support/lsp.js';
import { hubIn, writeTree } from './support/repo.js';

const EXAMPLES = fileURLToPath(new URL('../../schemas/examples/', import.meta.url));

/** The case's files where discovery finds them, and the file that names it to hub validate. */
function repository(fixture: Fixture): { files: Record<string, string>; main: string } {
  if (fixture.kind === 'trigger') {
    const main = `.hub/triggers/${fixture.id.slice('trigger/'.length)}`;
    return { files: { [main]: fixture.yaml as string }, main };
  }
  if (fixture.kind === 'bundle')
    return { files: Object.fromEntries(fixture.files.map((file) => [file.path, file.content])), main: '.hub/hub.yml' };
  const partials = fixture.files.map((file) => [`.hub/partials/${file.path}`, file.content]);
  return {
    files: { '.hub/config.yml': fixture.yaml as string, ...Object.fromEntries(partials) },
    main: '.hub/config.yml',
  };
}

/** A trigger with a BOM, CRLF line ends, a misspelled key on the BOM's line and issues after astral characters. */
const ASTRAL = [
  '\uFEFFnme: 😀-x',
  'on:',
  '  manual.run: {}',
  'filters: { from_users: [𝄞x], 😀: 1, bogus: 2 }',
  'run:',
  '  target: { daemon: box, cwd: /srv }',
  '  agent: { provider: claude, prompt: "😀 𝄞 {{ inputs.nope }}", max_runtime: 3q }',
  '',
].join('\r\n');

interface Seen {
  code: string;
  severity: 'error' | 'warning';
  line: number;
  character: number;
  message: string;
}

let base: string;
/** Each repository's directory (relative to base) and its main file. */
const repositories: { dir: string; main: string }[] = [];
let reported: {
  files: { path: string }[];
  issues: {
    file: string;
    line?: number;
    column?: number;
    code: string;
    message: string;
    severity: 'error' | 'warning';
  }[];
};
let client: LspClient | undefined;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'hub-lsp-golden-'));
  for (const fixture of loadFixtures()) {
    const dir = fixture.id.replace(/\.yml$/, '');
    const { files, main } = repository(fixture);
    try {
      writeTree(join(base, dir), files);
    } catch {
      // A name the file system cannot hold (more than 255 bytes): no repository holds it either.
      continue;
    }
    // A case whose main file discovery would not read (a bundle without hub.yml) names nothing to validate.
    if (existsSync(join(base, dir, main))) repositories.push({ dir, main });
  }
  cpSync(join(EXAMPLES, 'bundle'), join(base, 'examples/bundle'), { recursive: true });
  writeTree(join(base, 'examples/configuration'), {
    '.hub/config.yml': readFileSync(join(EXAMPLES, 'configuration.yml'), 'utf8'),
  });
  writeTree(join(base, 'examples/trigger'), {
    '.hub/triggers/example.yml': readFileSync(join(EXAMPLES, 'trigger.yml'), 'utf8'),
  });
  // No golden case has an astral character before an issue on its line, or an issue on a BOM's line: one that has.
  writeTree(join(base, 'astral'), { '.hub/triggers/astral.yml': ASTRAL });
  repositories.push({ dir: 'astral', main: '.hub/triggers/astral.yml' });
  repositories.push(
    { dir: 'examples/bundle', main: '.hub/hub.yml' },
    { dir: 'examples/configuration', main: '.hub/config.yml' },
    { dir: 'examples/trigger', main: '.hub/triggers/example.yml' },
  );

  const answer = await hubIn(base, [
    'validate',
    '--dir',
    base,
    '--json',
    ...repositories.map(({ dir, main }) => `${dir}/${main}`),
  ]);
  // Notes (a .yaml workflow is not read) are no issues; the server shows them only on an open file.
  expect(answer.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('note: '))).toEqual([]);
  reported = JSON.parse(answer.stdout) as typeof reported;
  client = await startLsp(base, { folders: repositories.map(({ dir }) => join(base, dir)) });
}, 120_000);

afterAll(async () => {
  if (client !== undefined && client.child.exitCode === null) client.child.kill();
  rmSync(base, { recursive: true, force: true });
});

/** The 0-based UTF-16 position of a 1-based code-point one (a leading BOM is no column for either). */
function converted(text: string, line: number, column: number): { line: number; character: number } {
  const content = text.split(/\r\n|\r|\n/)[line - 1] ?? '';
  return {
    line: line - 1,
    character: Array.from(line === 1 ? content.replace(/^\uFEFF/, '') : content)
      .slice(0, column - 1)
      .join('').length,
  };
}

const order = (a: Seen, b: Seen) =>
  `${a.line}:${a.character}:${a.code}:${a.message}`.localeCompare(`${b.line}:${b.character}:${b.code}:${b.message}`);

describe('hub lsp publishes what hub validate --json reports', () => {
  it('for many cases and the examples', () => {
    expect(repositories.length).toBeGreaterThan(150);
    expect(reported.issues.length).toBeGreaterThan(150);
  });

  it('on every file hub validate checked, with the same codes, severities, messages and converted positions', async () => {
    const lsp = client as LspClient;
    const paths = reported.files.map((file) => file.path);
    expect(paths.length).toBeGreaterThan(repositories.length);
    // Every checked file gets a publication at start (an empty one where it has no issue).
    const published = new Map<string, Diagnostic[]>();
    for (const path of paths) published.set(path, await lsp.diagnostics(uriOf(join(base, path)), () => true, 60_000));
    const mismatches: string[] = [];
    for (const path of paths) {
      const text = readFileSync(join(base, path), 'utf8');
      const expected = reported.issues
        .filter((issue) => issue.file === path)
        .map((issue) => ({
          code: issue.code,
          severity: issue.severity,
          ...(issue.line === undefined ? { line: 0, character: 0 } : converted(text, issue.line, issue.column ?? 1)),
          message: issue.message,
        }))
        .sort(order);
      const seen = (published.get(path) ?? [])
        .map((diagnostic) => ({
          code: String(diagnostic.code),
          severity: diagnostic.severity === 2 ? ('warning' as const) : ('error' as const),
          ...diagnostic.range.start,
          message: String(diagnostic.message),
        }))
        .sort(order);
      if (JSON.stringify(seen) !== JSON.stringify(expected))
        mismatches.push(`${path}\n  lsp:      ${JSON.stringify(seen)}\n  validate: ${JSON.stringify(expected)}`);
    }
    expect(mismatches).toEqual([]);
    // And nothing published on a file hub validate did not check.
    const checked = new Set(paths.map((path) => uriOf(join(base, path))));
    expect(
      lsp.published
        .filter((params) => params.diagnostics.length > 0 && !checked.has(params.uri))
        .map((params) => params.uri),
    ).toEqual([]);
  }, 120_000);
});
