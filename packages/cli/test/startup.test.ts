// What `hub --help` and `hub validate` load: only what they need (a pre-commit hook runs
// `hub validate` on every commit). `hub` is a bundle (scripts/bundle.js): each command is its own
// chunk, loaded when it runs, and dist/bundle/modules.json names the modules of each chunk, so a
// trace of the chunks imported tells which of the CLI's, the compiler's and yaml's modules ran.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commands } from '../src/cli.js';
import type { Command } from '../src/command.js';
import { MAIN } from './support/cli.js';
import { configurationYaml, triggerYaml } from './support/documents.js';
import { writeTree } from './support/repo.js';

/** A module hook that appends the URL of every module imported (not required) to $HUB_TRACE. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.HUB_TRACE, resolved.url + '\\n');
  return resolved;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
const BUNDLE = dirname(MAIN);
const CLI = fileURLToPath(new URL('..', import.meta.url));

/** The bundle's chunks, each with the absolute paths of the modules it holds. */
function chunks(): Map<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(BUNDLE, 'modules.json'), 'utf8')) as {
    chunks: Record<string, string[]>;
  };
  return new Map(
    Object.entries(manifest.chunks).map(([file, modules]) => [file, modules.map((module) => resolve(CLI, module))]),
  );
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-startup-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `hub args` in `dir`: what it printed, the files it imported, and the modules in those that are the bundle's chunks. */
function traced(args: string[]) {
  const trace = join(dir, 'trace.txt');
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, MAIN, ...args],
    {
      cwd: join(dir, 'repo'),
      env: { PATH: process.env.PATH ?? '', HOME: dir, HUB_TRACE: trace },
      encoding: 'utf8',
    },
  );
  const files = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url));
  const inBundle = chunks();
  const modules = files.flatMap((file) =>
    dirname(file) === BUNDLE ? (inBundle.get(file.slice(BUNDLE.length + 1)) ?? []) : [],
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, files, modules };
}

/** What neither command needs: the hub client and its HTTP, streams and logins, the daemon, the browser opener. */
const UNNEEDED = [
  /\/packages\/daemon\//,
  /\/packages\/cli\/dist\/(hub-client|sse|device-flow|credentials|credential-info|browser|run-api|run-follow|run-view|deploy)\.js$/,
  /\/packages\/cli\/dist\/commands\/(?!validate\.js$)/,
  /\/node_modules\/.*\/(open|default-browser|wsl-utils)\//,
];

describe('start-up', () => {
  beforeEach(() => {
    writeTree(join(dir, 'repo'), {
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Test.\n',
      '.hub/triggers/nightly.yml': triggerYaml('nightly'),
    });
  });

  it('hub --help loads the entry and what the commands share, no command, nor the compiler or yaml', () => {
    const { code, stdout, files, modules } = traced(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: hub <command>/m);
    expect(files.map((file) => file.slice(BUNDLE.length + 1).replace(/-[\w-]{8}\.js$/, '.js')).sort()).toEqual([
      'hub.js',
      'start.js',
    ]);
    expect(modules).toContain(join(CLI, 'dist/cli.js'));
    for (const pattern of [...UNNEEDED, /\/packages\/compiler\//, /\/yaml\//])
      expect(modules.filter((path) => pattern.test(path))).toEqual([]);
  });

  it.each([[['deplyo']], [['help']]])(
    'hub %j, like --help, loads the entry and the start chunk alone: no command, nor the compiler',
    (args) => {
      const { stderr, files, modules } = traced(args);
      expect(stderr).toMatch(/^$|did you mean deploy\?/);
      expect(files.map((file) => file.slice(BUNDLE.length + 1).replace(/-[\w-]{8}\.js$/, '.js')).sort()).toEqual([
        'hub.js',
        'start.js',
      ]);
      for (const pattern of [...UNNEEDED, /\/packages\/compiler\//, /\/yaml\//])
        expect(modules.filter((path) => pattern.test(path))).toEqual([]);
    },
  );

  it('hub validate loads the compiler and yaml, and nothing of the hub client, the daemon or the other commands', () => {
    const { code, stdout, files, modules } = traced(['validate']);
    expect(code).toBe(0);
    expect(stdout).toBe('Checked 3 files: valid.\n');
    expect(files.filter((file) => dirname(file) !== BUNDLE)).toEqual([]);
    expect(modules).toContain(resolve(CLI, '../compiler/dist/index.js'));
    expect(modules.some((path) => /\/node_modules\/.*\/yaml\/dist\/index\.js$/.test(path))).toBe(true);
    for (const pattern of UNNEEDED) expect(modules.filter((path) => pattern.test(path))).toEqual([]);
  });

  it('hub daemon --help loads @hub/daemon (what the trace would see, were validate to load it)', () => {
    const { code, modules } = traced(['daemon', '--help']);
    expect(code).toBe(0);
    expect(modules.some((path) => /\/packages\/daemon\/dist\//.test(path))).toBe(true);
  });
});

describe('the commands of hub', () => {
  it.each(commands.map((command) => [command.name, command] as const))(
    '%s is listed with its module’s own name and summary',
    async (name, listed) => {
      const module = (await import(`../src/commands/${name}.ts`)) as Record<string, Command>;
      expect({ name: module[name]?.name, summary: module[name]?.summary }).toEqual({
        name: listed.name,
        summary: listed.summary,
      });
    },
  );
});
