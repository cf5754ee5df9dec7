// `hub` installed as a command (issue 16): scripts/pack.js packs the bundle into a tarball with no
// dependencies and installs it with npm into a temporary prefix, offline and with a registry that
// answers nothing; the installed `hub` then runs from a directory outside the checkout, with a PATH
// that holds no workspace bin directory and no NODE_PATH.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finished } from './support/cli.js';
import { triggerYaml } from './support/documents.js';
import { exec, writeTree } from './support/repo.js';

const CLI = fileURLToPath(new URL('..', import.meta.url));
const PACK = join(CLI, 'scripts/pack.js');
const { name, version } = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
// npm on a loaded two-core machine.
const NPM_MS = 180_000;

let dir: string;
let prefix: string;
let tarball: string;
/** What pack.js --install said on standard error. */
let said: string;
/** A PATH with the installed bin directory and node's, nothing of the workspace. */
let path: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-install-'));
  prefix = join(dir, 'prefix');
  path = [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  // The tarball goes to this test's own directory: another run packing at the same time writes its own.
  // --no-build: vitest's global setup has bundled the current build; pack.js bundles again only if stale.
  const packed = await packInstall(prefix, 'pack', path);
  expect(packed.code, packed.stderr).toBe(0);
  tarball = packed.stdout.trim().split('\n').at(-1) ?? '';
  said = packed.stderr;
}, NPM_MS);

/** `pack.js --no-build --install --prefix` into `into`, offline, with `PATH` as given. */
function packInstall(into: string, out: string, PATH: string): Promise<Finished> {
  return exec(process.execPath, [PACK, '--no-build', '--out', join(dir, out), '--install', '--prefix', into], CLI, {
    PATH,
    HOME: dir,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_offline: 'true',
    // Nothing listens on port 9 (discard): a fetch would fail, and so would the install.
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_update_notifier: 'false',
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the installed `hub` (the link npm made, by its #! line) in `cwd`. */
function installed(args: string[], cwd: string): Promise<Finished> {
  return exec(join(prefix, 'bin/hub'), args, cwd, { PATH: path, HOME: dir });
}

describe('node scripts/pack.js --install', () => {
  it('packs a tarball of the bundle with no dependencies', () => {
    expect(tarball).toBe(join(dir, 'pack', `${name.replace('@', '').replace('/', '-')}-${version}.tgz`));
    expect(existsSync(tarball)).toBe(true);
    const home = join(prefix, 'lib/node_modules', name);
    const manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name, version, bin: { hub: './bundle/hub.js' }, engines: { node: '>=20.19' } });
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
      expect(manifest).not.toHaveProperty(field);
    expect(readdirSync(home).sort()).toEqual(['README.md', 'bundle', 'package.json']);
  });

  it('puts a hub on PATH that prints the package version', async () => {
    expect(await installed(['--version'], dir)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const which = await exec('sh', ['-c', 'command -v hub'], dir, { PATH: path });
    expect(which.stdout.trim()).toBe(join(prefix, 'bin/hub'));
  });

  it('says where hub went; with that directory on PATH, nothing more', () => {
    expect(said).toContain(`Installed hub in ${join(prefix, 'bin')}. Check it with: hub --version`);
    expect(said).not.toContain('not on PATH');
  });

  it(
    'says when the bin directory it installed into is not on PATH, and how to add it',
    async () => {
      const elsewhere = join(dir, 'elsewhere');
      const packed = await packInstall(
        elsewhere,
        'pack-elsewhere',
        [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      );
      expect(packed.code, packed.stderr).toBe(0);
      const bin = join(elsewhere, 'bin');
      expect(packed.stderr).toContain(
        `Installed hub in ${bin}, which is not on PATH: add it (export PATH="${bin}:$PATH"`,
      );
      expect(existsSync(join(bin, 'hub'))).toBe(true);
    },
    NPM_MS,
  );

  it(
    'when npm cannot install, says how to install into a prefix of your own',
    async () => {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      const packed = await packInstall(file, 'pack-refused', path);
      expect(packed.code).toBe(1);
      expect(packed.stderr).toMatch(
        /^pack: npm install --global .* failed \(exit \d+\)\. Where npm's global directory is not yours to write, give a prefix of your own: --install --prefix ~\/\.local/m,
      );
    },
    NPM_MS,
  );

  it('shows its help, and every command it lists loads (each is a chunk of its own) and shows its own', async () => {
    const help = await installed(['--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: hub <command> \[options\]$/m);
    const names = [...help.stdout.matchAll(/^ {2}([a-z]+) +[A-Z]/gm)].map(([, name]) => name as string);
    expect(names).toEqual(expect.arrayContaining(['validate', 'deploy', 'daemon', 'completion']));
    for (const name of names) {
      const own = await installed([name, '--help'], dir);
      expect({ name, code: own.code, stderr: own.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(own.stdout).toMatch(new RegExp(`^Usage: hub ${name}\\b`, 'm'));
    }
  }, 60_000);

  it('validates a repository outside the checkout with the bundled compiler', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeTree(repo, { '.hub/triggers/nightly.yml': triggerYaml('nightly') });
    expect(await installed(['validate'], repo)).toMatchObject({ code: 0, stderr: '' });

    writeTree(repo, { '.hub/triggers/broken.yml': triggerYaml('broken').replace('filters:', 'filter:') });
    const broken = await installed(['validate', '--json'], repo);
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.stdout) as { issues: { file: string; code: string }[] };
    expect(report.issues).toContainEqual(
      expect.objectContaining({ file: '.hub/triggers/broken.yml', code: 'schema.unknown_key' }),
    );
  });
});
