// `hub validate` before a commit: the hook of .pre-commit-hooks.yaml (its entry run as
// pre-commit would, pass_filenames false) and the plain git hook of the README, run by git.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MAIN } from './support/cli.js';
import { triggerYaml } from './support/documents.js';
import { writeTree } from './support/repo.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-pre-commit-'));
  // `hub` on PATH, as an installed CLI would be.
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin/hub'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(dir, 'bin/hub'), 0o755);
  env = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  mkdirSync(join(dir, 'repo'));
  git('init', '-q', '-b', 'main');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: join(dir, 'repo'), env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function git(...args: string[]) {
  const result = run('git', args);
  if (result.code !== 0 && args[0] !== 'commit') throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result;
}

const BAD = triggerYaml('nightly').replace('filters:', 'filter:');

describe('.pre-commit-hooks.yaml', () => {
  const hooks = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as Record<string, unknown>[];
  const hook = hooks.find((candidate) => candidate.id === 'hub-validate') as {
    entry: string;
    language: string;
    files: string;
    pass_filenames: boolean;
  };

  it('defines hub-validate: hub validate from PATH, on any change under .hub/, over the whole repository', () => {
    expect(hook).toMatchObject({ entry: 'hub validate', language: 'system', pass_filenames: false });
    const files = new RegExp(hook.files);
    for (const path of [
      '.hub/triggers/a.yml',
      '.hub/config.yml',
      '.hub/partials/testing.md',
      '.hub/workflows/partials/r.md',
    ])
      expect(files.test(path)).toBe(true);
    for (const path of ['src/index.ts', 'docs/.hub/x.yml', 'README.md']) expect(files.test(path)).toBe(false);
  });

  it('its entry fails on an invalid file and passes on valid ones', () => {
    const [command, ...args] = hook.entry.split(' ') as [string, ...string[]];
    writeTree(join(dir, 'repo'), { '.hub/triggers/nightly.yml': BAD });
    const failed = run(command, args);
    expect(failed.stdout).toMatch(/^\.hub\/triggers\/nightly\.yml:5:1: schema\.unknown_key /m);
    expect(failed.code).toBe(1);
    writeTree(join(dir, 'repo'), { '.hub/triggers/nightly.yml': triggerYaml('nightly') });
    expect(run(command, args)).toMatchObject({ code: 0, stdout: 'Checked 1 file: valid.\n' });
  });
});

describe("the README's plain git hook", () => {
  beforeEach(() => {
    const readme = readFileSync(join(ROOT, 'packages/cli/README.md'), 'utf8');
    const script = /<!-- pre-commit hook:[^>]*-->\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    if (script === undefined) throw new Error('no hook script in the README');
    writeFileSync(join(dir, 'repo/.git/hooks/pre-commit'), script);
    chmodSync(join(dir, 'repo/.git/hooks/pre-commit'), 0o755);
  });

  it('refuses a commit whose staged trigger file is invalid, even when the working tree is fixed', () => {
    writeTree(join(dir, 'repo'), { '.hub/triggers/nightly.yml': BAD, 'README.md': 'x\n' });
    git('add', '.');
    writeTree(join(dir, 'repo'), { '.hub/triggers/nightly.yml': triggerYaml('nightly') });
    const refused = git('commit', '-q', '-m', 'bad');
    // git passes a hook's standard output on to its standard error.
    expect(refused.stdout + refused.stderr).toMatch(/^\.hub\/triggers\/nightly\.yml:5:1: schema\.unknown_key /m);
    expect(refused.code).not.toBe(0);
    expect(git('rev-list', '--all').stdout).toBe('');

    git('add', '.');
    expect(git('commit', '-q', '-m', 'good').code).toBe(0);
  });

  it('lets commits through that touch nothing under .hub/, or remove it', () => {
    writeTree(join(dir, 'repo'), { 'README.md': 'x\n' });
    git('add', '.');
    expect(git('commit', '-q', '-m', 'readme').code).toBe(0);
    writeTree(join(dir, 'repo'), { '.hub/triggers/nightly.yml': triggerYaml('nightly') });
    git('add', '.');
    expect(git('commit', '-q', '-m', 'trigger').code).toBe(0);
    git('rm', '-q', '-r', '.hub');
    expect(git('commit', '-q', '-m', 'no more hub files').code).toBe(0);
  });
});
