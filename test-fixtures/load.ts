// Loads the golden cases of test-fixtures/: each is an input plus the issues it must produce
// (codes, pointers, files and positions; never wording). Shared by the compiler's, the
// server's and the CLI's tests. The format is described in test-fixtures/README.md.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

export const fixturesDir = new URL('.', import.meta.url).pathname;

export type FixtureKind = 'configuration' | 'trigger' | 'bundle';

export interface ExpectedIssue {
  code: string;
  pointer: string;
  file?: string;
  line?: number;
  column?: number;
}

export interface ResourceCatalogFixture {
  daemons: { name: string; runtimes: { provider: string; modes?: string[]; models?: string[] }[] }[];
}

export interface Fixture {
  /** kind/name, unique. */
  id: string;
  kind: FixtureKind;
  description: string;
  /** Configuration and trigger cases: the YAML text, byte for byte. */
  yaml?: string;
  /** Configuration cases: partials. Bundle cases: files. */
  files: { path: string; content: string }[];
  /** undefined: the document must compile. */
  issues?: ExpectedIssue[];
  warnings?: ExpectedIssue[];
  /** When set, the compiled value is checked against it with resolveResources. */
  catalog?: ResourceCatalogFixture;
  resourceIssues?: ExpectedIssue[];
}

const KINDS: FixtureKind[] = ['configuration', 'trigger', 'bundle'];

/** A dispatch input case: declared inputs, an `input` text, and what parseManualInput makes of it. */
export interface DispatchFixture {
  id: string;
  description: string;
  declared: { name: string; description?: string; required: boolean; default?: string; enum?: string[] }[];
  input: string;
  /** Either the parsed inputs and prompt, or the issues. */
  inputs?: Record<string, string>;
  prompt?: string;
  issues?: ExpectedIssue[];
}

export function loadDispatchFixtures(): DispatchFixture[] {
  const dir = join(fixturesDir, 'dispatch');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yml'))
    .sort()
    .map((name) => {
      const spec = parse(readFileSync(join(dir, name), 'utf8')) as Omit<DispatchFixture, 'id' | 'issues'> & {
        expect: { inputs: Record<string, string>; prompt: string } | string[];
      };
      const fixture: DispatchFixture = { id: `dispatch/${name}`, description: spec.description, declared: spec.declared, input: spec.input };
      if (Array.isArray(spec.expect)) fixture.issues = spec.expect.map(parseExpectLine);
      else {
        fixture.inputs = spec.expect.inputs;
        fixture.prompt = spec.expect.prompt;
      }
      return fixture;
    });
}

export function loadFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const kind of KINDS) {
    const dir = join(fixturesDir, kind);
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) fixtures.push(loadFolder(kind, name, path));
      else if (name.endsWith('.yml')) fixtures.push(loadFile(kind, name, path));
    }
  }
  return fixtures;
}

/** `# expect: code pointer [file] line:column|-` lines; a pointer "" is the root. */
function parseExpectLine(text: string): ExpectedIssue {
  const parts = text.trim().split(/\s+/);
  const [code, rawPointer] = parts;
  if (code === undefined || rawPointer === undefined) throw new Error(`bad expect line: ${text}`);
  const issue: ExpectedIssue = { code, pointer: rawPointer === '""' ? '' : rawPointer };
  const rest = parts.slice(2);
  const position = rest.pop();
  if (rest.length > 0) issue.file = rest.join(' ');
  if (position !== undefined && position !== '-') {
    const [line, column] = position.split(':').map(Number);
    issue.line = line;
    issue.column = column;
  }
  return issue;
}

function loadFile(kind: FixtureKind, name: string, path: string): Fixture {
  const text = readFileSync(path, 'utf8');
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.startsWith('#'));
  const fixture: Fixture = { id: `${kind}/${name}`, kind, description: '', yaml: text, files: [] };
  for (const line of header) {
    const body = line.slice(1).trim();
    if (body.startsWith('expect: valid')) fixture.issues = undefined;
    else if (body.startsWith('expect:')) (fixture.issues ??= []).push(parseExpectLine(body.slice(7)));
    else if (body.startsWith('warning:')) (fixture.warnings ??= []).push(parseExpectLine(body.slice(8)));
    else if (body.startsWith('catalog:')) fixture.catalog = JSON.parse(body.slice(8)) as ResourceCatalogFixture;
    else if (body.startsWith('resource:')) (fixture.resourceIssues ??= []).push(parseExpectLine(body.slice(9)));
    else if (fixture.description === '' && !body.startsWith('yaml-language-server')) fixture.description = body;
  }
  if (!header.some((line) => /^#\s*expect:/.test(line))) throw new Error(`${fixture.id}: no "# expect:" line`);
  return fixture;
}

interface CaseFile {
  description: string;
  expect?: (string | ExpectedIssue)[] | 'valid';
  warnings?: (string | ExpectedIssue)[];
  yaml?: string;
  entries?: { path: string; content: string }[];
  catalog?: ResourceCatalogFixture;
  resources?: (string | ExpectedIssue)[];
}

function loadFolder(kind: FixtureKind, name: string, path: string): Fixture {
  const spec = parse(readFileSync(join(path, 'case.yml'), 'utf8')) as CaseFile;
  const all = listFiles(path).filter((file) => file !== 'case.yml');
  const fixture: Fixture = { id: `${kind}/${name}`, kind, description: spec.description, files: [] };
  const read = (file: string) => readFileSync(join(path, file), 'utf8');
  if (kind === 'bundle') {
    fixture.files = all.map((file) => ({ path: file, content: read(file) }));
  } else {
    if (all.includes('config.yml')) fixture.yaml = read('config.yml');
    fixture.files = all
      .filter((file) => file.startsWith('partials/'))
      .map((file) => ({ path: file.slice('partials/'.length), content: read(file) }));
  }
  if (spec.yaml !== undefined) fixture.yaml = spec.yaml;
  fixture.files.push(...(spec.entries ?? []));
  const toIssue = (item: string | ExpectedIssue) => (typeof item === 'string' ? parseExpectLine(item) : item);
  if (spec.expect === undefined) throw new Error(`${fixture.id}: case.yml has no expect`);
  if (spec.expect !== 'valid') fixture.issues = spec.expect.map(toIssue);
  if (spec.warnings !== undefined) fixture.warnings = spec.warnings.map(toIssue);
  if (spec.catalog !== undefined) fixture.catalog = spec.catalog;
  if (spec.resources !== undefined) fixture.resourceIssues = spec.resources.map(toIssue);
  return fixture;
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path, base));
    else out.push(relative(base, path).split('\\').join('/'));
  }
  return out;
}
