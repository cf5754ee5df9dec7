// What `hub --help` and `hub validate` load: only what they need (a pre-commit hook runs
// `hub validate` on every commit). The commands load lazily, and their listing is their own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commands } from '../dist/cli.js';
import type { Command } from '../dist/command.js';
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

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-startup-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `hub args` in `dir`, and returns what it printed and the modules it imported. */
function traced(args: string[]) {
  const trace = join(dir, 'trace.txt');
  const result = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, MAIN, ...args], {
    cwd: join(dir, 'repo'),
    env: { PATH: process.env.PATH ?? '', HOME: dir, HUB_TRACE: trace },
    encoding: 'utf8',
  });
  const modules = readFileSync(trace, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules };
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
    writeTree(join(dir, 'repo'), { '.hub/config.yml': configurationYaml(['testing.md']), '.hub/partials/testing.md': 'Test.\n', '.hub/triggers/nightly.yml': triggerYaml('nightly') });
  });

  it('hub --help loads no command, nor the compiler or yaml', () => {
    const { code, stdout, modules } = traced(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: hub <command>/m);
    expect(modules.some((url) => url.endsWith('/packages/cli/dist/cli.js'))).toBe(true);
    for (const pattern of [...UNNEEDED, /\/packages\/compiler\//, /\/yaml\//]) expect(modules.filter((url) => pattern.test(url))).toEqual([]);
  });

  it('hub validate loads the compiler, and nothing of the hub client, the daemon or the other commands', () => {
    const { code, stdout, modules } = traced(['validate']);
    expect(code).toBe(0);
    expect(stdout).toBe('Checked 3 files: valid.\n');
    expect(modules.some((url) => url.endsWith('/packages/compiler/dist/index.js'))).toBe(true);
    for (const pattern of UNNEEDED) expect(modules.filter((url) => pattern.test(url))).toEqual([]);
  });
});

describe('the commands of hub', () => {
  it.each(commands.map((command) => [command.name, command] as const))('%s is listed with its module’s own name and summary', async (name, listed) => {
    const module = (await import(`../dist/commands/${name}.js`)) as Record<string, Command>;
    expect({ name: module[name]?.name, summary: module[name]?.summary }).toEqual({ name: listed.name, summary: listed.summary });
  });
});
