// The first hour with `hub` (issue 16): `hub help`, a suggestion for a mistyped command, shell
// completion, and `hub validate --json`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commands } from '../src/cli.js';
import { hub, MAIN } from './support/cli.js';
import { triggerYaml } from './support/documents.js';
import { writeTree } from './support/repo.js';

const NAMES = [...commands.map((command) => command.name), 'help'];

/** Whether `shell` is installed: a check of a script in a shell that is absent is skipped, and says so. */
function installed(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

describe('hub help', () => {
  it('alone is hub --help', async () => {
    const help = await hub(['--help']);
    expect(await hub(['help'])).toEqual({ code: 0, stdout: help.stdout, stderr: '' });
    expect(help.stdout).toMatch(/^Run "hub help <command>"/m);
  });

  it.each([[['deploy']], [['daemon']], [['daemon', 'run']], [['auth', 'status']], [['completion']]])(
    '%j is that command with --help',
    async (args) => {
      const help = await hub([...args, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: hub /m);
      expect(await hub(['help', ...args])).toEqual(help);
    },
  );

  // Read in an 100-column terminal: a line past that wraps mid-word (hub login's did).
  it.each([
    [[]],
    ...commands.map((command) => [[command.name]]),
    [['daemon', 'enroll']],
    [['daemon', 'run']],
    [['auth', 'status']],
  ])('%j --help fits in 100 columns', async (args) => {
    const help = await hub([...args, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.split('\n').filter((line) => line.length > 100)).toEqual([]);
  });

  it('of an unknown command is a usage error with a suggestion', async () => {
    expect(await hub(['help', 'valdate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'hub: Unknown command "valdate"; did you mean validate?\nRun "hub --help" for usage.\n',
    });
  });
});

describe('a mistyped command', () => {
  it.each([
    ['deplyo', 'deploy', 'hub'],
    ['Deploy', 'deploy', 'hub'],
    ['lgos', 'logs', 'hub'],
    ['compeltion', 'completion', 'hub'],
    ['daemon enrol', 'enroll', 'hub daemon'],
    ['auth stauts', 'status', 'hub auth'],
  ])('%s: exit 2, did you mean %s?', async (typed, meant, group) => {
    const { code, stdout, stderr } = await hub(typed.split(' '));
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      `hub: Unknown command "${typed.split(' ').at(-1)}"; did you mean ${meant}?\nRun "${group} --help" for usage.\n`,
    );
  });

  it('far from every command gets no suggestion', async () => {
    expect((await hub(['xyzzy'])).stderr).toBe('hub: Unknown command "xyzzy".\nRun "hub --help" for usage.\n');
  });

  it.each([
    ['deploy --dryrun', "'--dryrun'; did you mean --dry-run?", 'hub deploy'],
    ['projects --jsn', "'--jsn'; did you mean --json?", 'hub projects'],
    ['validate --fromat=json', "'--fromat'; did you mean --format?", 'hub validate'],
    ['daemon enroll --nmae', "'--nmae'; did you mean --name?", 'hub daemon enroll'],
  ])('a mistyped option, %s: exit 2, did you mean?', async (typed, said, command) => {
    expect(await hub(typed.split(' '))).toEqual({
      code: 2,
      stdout: '',
      stderr: `hub: Unknown option ${said}\nRun "${command} --help" for usage.\n`,
    });
  });

  it.each([
    ['--verison', 'Unknown option "--verison"; did you mean --version?'],
    ['version', 'Unknown command "version"; did you mean --version?'],
    ['--hlep', 'Unknown option "--hlep"; did you mean --help?'],
  ])("hub's own option mistyped, %s: exit 2, did you mean?", async (typed, said) => {
    expect(await hub([typed])).toEqual({ code: 2, stdout: '', stderr: `hub: ${said}\nRun "hub --help" for usage.\n` });
  });

  it('an option far from every one gets no suggestion', async () => {
    expect((await hub(['projects', '--xyzzy'])).stderr).toBe(
      'hub: Unknown option \'--xyzzy\'.\nRun "hub projects --help" for usage.\n',
    );
  });
});

describe('hub completion', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-completion-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** What bash completes for the words typed so far (the last one being completed), with the script sourced. */
  function bashCompletes(words: string[]): string[] {
    const script = `source <("${process.execPath}" "${MAIN}" completion bash) || exit 3
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_hub; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  it.skipIf(!installed('bash'))('bash: completes the commands, sub-commands and shells', () => {
    expect(bashCompletes(['hub', 'dep'])).toEqual(['deploy']);
    expect(bashCompletes(['hub', 'lo']).sort()).toEqual(['login', 'logout', 'logs']);
    expect(bashCompletes(['hub', '']).sort()).toEqual([...NAMES].sort());
    expect(bashCompletes(['hub', 'daemon', '']).sort()).toEqual(['enroll', 'run']);
    expect(bashCompletes(['hub', 'auth', 's'])).toEqual(['status']);
    expect(bashCompletes(['hub', 'completion', 'z'])).toEqual(['zsh']);
    expect(bashCompletes(['hub', 'help', 'da'])).toEqual(['daemon']);
    // Elsewhere nothing: bash then completes file names (complete -o default).
    expect(bashCompletes(['hub', 'validate', '.h'])).toEqual([]);
    const registered = spawnSync(
      'bash',
      ['-c', `source <("${process.execPath}" "${MAIN}" completion bash); complete -p hub`],
      { encoding: 'utf8' },
    );
    expect(registered.stdout).toBe('complete -o default -F _hub hub\n');
  });

  /**
   * What zsh's _hub offers for the words typed so far, with compadd and _files standing in for
   * the completion system's own (compinit needs a terminal): the function's logic runs in zsh.
   */
  function zshCompletes(words: string[]): string[] {
    const script = `compdef() { : }
compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
_files() { print -- '<files>' }
source <("${process.execPath}" "${MAIN}" completion zsh) || exit 3
words=(${words.map((word) => `'${word}'`).join(' ')}); CURRENT=${words.length}
_hub`;
    const result = spawnSync('zsh', ['-f', '-c', script], { cwd: dir, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  it.skipIf(!installed('zsh'))('zsh: offers the commands, sub-commands and shells, and files elsewhere', () => {
    expect(zshCompletes(['hub', '']).sort()).toEqual([...NAMES].sort());
    expect(zshCompletes(['hub', 'daemon', '']).sort()).toEqual(['enroll', 'run']);
    expect(zshCompletes(['hub', 'auth', '']).sort()).toEqual(['status']);
    expect(zshCompletes(['hub', 'completion', '']).sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(zshCompletes(['hub', 'help', '']).sort()).toEqual([...NAMES].filter((name) => name !== 'help').sort());
    expect(zshCompletes(['hub', 'validate', ''])).toEqual(['<files>']);
  });

  /** What fish completes for a command line (its own `complete -C`), with the script loaded. */
  function fishCompletes(line: string): string[] {
    const script = `"${process.execPath}" "${MAIN}" completion fish | source; or exit 3; complete -C '${line}'`;
    const result = spawnSync('fish', ['--no-config', '-c', script], { cwd: dir, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout
      .split('\n')
      .filter((entry) => entry !== '')
      .map((entry) => entry.split('\t')[0] ?? '');
  }

  it.skipIf(!installed('fish'))('fish: completes the commands, sub-commands and shells', () => {
    expect(fishCompletes('hub dep')).toEqual(['deploy']);
    expect(fishCompletes('hub lo').sort()).toEqual(['login', 'logout', 'logs']);
    expect(fishCompletes('hub ').sort()).toEqual([...NAMES].sort());
    expect(fishCompletes('hub daemon ').sort()).toEqual(['enroll', 'run']);
    expect(fishCompletes('hub auth s')).toEqual(['status']);
    expect(fishCompletes('hub completion z')).toEqual(['zsh']);
    expect(fishCompletes('hub help da')).toEqual(['daemon']);
  });

  it.each(['zsh', 'fish'])('%s: names every command, and the shell parses the script', async (shell) => {
    const { code, stdout, stderr } = await hub(['completion', shell]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const name of [...NAMES, 'enroll', 'status']) expect(stdout).toMatch(new RegExp(`\\b${name}\\b`));
    if (!installed(shell)) {
      console.warn(`${shell} is not installed: its completion script was not parsed by ${shell} -n`);
      return;
    }
    // The script as -c's argument: fish reads no script from a pipe made by spawnSync.
    const parsed = spawnSync(shell, ['-n', '-c', stdout], { encoding: 'utf8' });
    expect(parsed.stderr).toBe('');
    expect(parsed.status).toBe(0);
  });

  it('--help says how to install each script', async () => {
    const { code, stdout } = await hub(['completion', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/source <\(hub completion bash\)/);
    expect(stdout).toMatch(/source <\(hub completion zsh\)/);
    expect(stdout).toMatch(/hub completion fish > ~\/\.config\/fish\/completions\/hub\.fish/);
  });

  it.each([
    [[], /^hub: Name a shell: bash, zsh or fish\.\nRun "hub completion --help" for usage\.\n$/],
    [['tcsh'], /^hub: Unknown shell "tcsh": give bash, zsh or fish\./],
    [['bash', 'zsh'], /Unexpected argument "zsh"/],
  ])('%j is a usage error', async (args, message) => {
    const { code, stdout, stderr } = await hub(['completion', ...args]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
  });
});

describe('hub validate --json', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-validate-json-'));
    writeTree(dir, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.hub/triggers/nightly.yml': triggerYaml('nightly'),
      '.hub/triggers/broken.yml': 'name: [\n',
    });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is --format json', async () => {
    const long = await hub(['validate', '--dir', dir, '--format', 'json']);
    expect(long.code).toBe(1);
    expect(JSON.parse(long.stdout)).toMatchObject({ valid: false });
    expect(await hub(['validate', '--dir', dir, '--json'])).toEqual(long);
    expect(await hub(['validate', '--dir', dir, '--json', '--format', 'json'])).toEqual(long);
  });

  it('with --format text is a usage error', async () => {
    expect(await hub(['validate', '--dir', dir, '--json', '--format', 'text'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'hub: --json and --format text conflict: give one.\nRun "hub validate --help" for usage.\n',
    });
  });
});
