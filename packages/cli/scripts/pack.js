// Packs `hub` for an install outside the workspace: a tarball of dist/bundle/ (scripts/bundle.js)
// and a package.json with no dependencies. The bundle already holds the compiler, the daemon, yaml,
// open and the rest, so the tarball installs offline, with nothing fetched and no `workspace:*`
// specifier for npm to trip on.
//   node scripts/pack.js                          builds the CLI (tsc -b), bundles, packs into dist/pack/
//   node scripts/pack.js --install [--prefix DIR] the same, then `npm install --global` of the tarball
//   node scripts/pack.js --no-build --out DIR     packs the bundle as it is (bundled again only when stale)
// It prints the tarball's path on standard output (the last line when --install adds npm's own);
// --install also says on standard error where `hub` went, and whether PATH has that directory.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle, OUT, stale } from './bundle.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workspace = join(root, '../..');
const BUILTINS = new Set(builtinModules);
// Static and dynamic imports of the minified chunks: `from"./x.js"`, `import"./x.js"`, `import("./x.js")`.
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*(["'])([^"'\s]+)\1/g;

/** The options of the command line; unknown ones stop it. */
function options(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      install: { type: 'boolean', default: false },
      prefix: { type: 'string' },
      out: { type: 'string', default: join(root, 'dist/pack') },
    },
  });
  if (values.prefix !== undefined && !values.install) throw new Error('--prefix is for --install');
  return { build: !values['no-build'], install: values.install, prefix: values.prefix, out: resolve(values.out) };
}

/** Runs `command args` with the output shown; a failure stops the script. */
function run(command, args, cwd = workspace) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`,
    );
}

/** `tsc -b` of the CLI and what it references (the compiler, the schemas, the daemon), not the server. */
function build() {
  const tsc = createRequire(join(workspace, 'package.json')).resolve('typescript/bin/tsc');
  run(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')]);
}

/**
 * The modules that the files of `dir` import and `dir` does not hold: none, or the package would
 * need dependencies. A relative import names a file of `dir`; a bare one a Node built-in.
 */
function missing(dir) {
  const files = new Set(readdirSync(dir, { recursive: true }).map(String));
  const wanted = [];
  for (const file of files) {
    if (!file.endsWith('.js')) continue;
    for (const [, , specifier] of readFileSync(join(dir, file), 'utf8').matchAll(IMPORT)) {
      const found = specifier.startsWith('.')
        ? files.has(join(dirname(file), specifier))
        : specifier.startsWith('node:') || BUILTINS.has(specifier);
      if (!found) wanted.push(`${file} imports ${specifier}`);
    }
  }
  return wanted;
}

/**
 * Copies the bundle into `dir`. Another test run may put a new bundle in place meanwhile (by two
 * renames, scripts/bundle.js), so a copy that misses a chunk is made again.
 */
function copyBundle(dir) {
  for (let attempt = 1; ; attempt += 1) {
    rmSync(dir, { recursive: true, force: true });
    try {
      cpSync(OUT, dir, { recursive: true, filter: (source) => source !== join(OUT, 'modules.json') });
      const wanted = missing(dir);
      if (wanted.length === 0) return;
      if (attempt === 3) throw new Error(`the bundle is not self-contained:\n  ${wanted.join('\n  ')}`);
    } catch (error) {
      if (error.code !== 'ENOENT' || attempt === 3) throw error;
    }
  }
}

/** The package.json of the tarball: the CLI's name and version, the bundle as its bin, and no dependencies. */
function manifest() {
  const { name, version, description } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return {
    name,
    version,
    description,
    // Built from a checkout, for a local install: never published by mistake.
    private: true,
    type: 'module',
    bin: { hub: './bundle/hub.js' },
    files: ['bundle'],
    engines: { node: '>=20.19' },
  };
}

const README = (name, version) => `# ${name} ${version}: the \`hub\` command

Packed from a checkout of the hub by \`node packages/cli/scripts/pack.js\`: the CLI bundled into
\`bundle/\` with everything it runs (the compiler, the reference daemon, yaml, open), so this package
has no dependencies and installs offline.

- Install or upgrade: \`npm install --global ${name.replace('@', '').replace('/', '-')}-${version}.tgz\`
- Uninstall: \`npm uninstall --global ${name}\`
- Help: \`hub --help\`, \`hub help <command>\`
`;

/**
 * Where npm put the `hub` link: `<prefix>/bin` (npm's global prefix without --prefix; on Windows the
 * prefix itself). A new user's `hub: command not found` after `--prefix ~/.local` is a `bin` that is
 * not on PATH, so the script says where `hub` is and whether PATH has it.
 */
function binDirectory(prefix) {
  const global =
    prefix === undefined
      ? spawnSync('npm', ['prefix', '--global'], { encoding: 'utf8' }).stdout.trim()
      : resolve(prefix);
  return process.platform === 'win32' ? global : join(global, 'bin');
}

/** The line that says where `hub` is installed, and how to put it on PATH when it is not. */
function installedNote(bin) {
  const onPath = (process.env.PATH ?? '').split(delimiter).some((entry) => entry !== '' && resolve(entry) === bin);
  return onPath
    ? `Installed hub in ${bin}. Check it with: hub --version`
    : `Installed hub in ${bin}, which is not on PATH: add it (export PATH="${bin}:$PATH", in your shell's profile), or run ${join(bin, 'hub')}.`;
}

/** Writes the package into a temporary directory and packs it into `out`; returns the tarball's path. */
function pack(out) {
  const stage = mkdtempSync(join(tmpdir(), 'hub-pack-'));
  try {
    copyBundle(join(stage, 'bundle'));
    const pkg = manifest();
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    writeFileSync(join(stage, 'README.md'), README(pkg.name, pkg.version));
    mkdirSync(out, { recursive: true });
    const result = spawnSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (result.status !== 0)
      throw new Error(`npm pack failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
    const [{ filename }] = JSON.parse(result.stdout);
    return join(out, filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { build: building, install, prefix, out } = options(process.argv.slice(2));
    if (building) build();
    if (stale()) await bundle();
    const tarball = pack(out);
    if (install) {
      // Nothing to fetch: no audit, no funding notice, no update check.
      try {
        run('npm', [
          'install',
          '--global',
          '--no-audit',
          '--no-fund',
          '--no-update-notifier',
          ...(prefix === undefined ? [] : ['--prefix', resolve(prefix)]),
          tarball,
        ]);
      } catch (error) {
        // Most often EACCES on /usr/local: npm's error ends the output, the way out should too.
        throw new Error(
          `${error.message}. Where npm's global directory is not yours to write, give a prefix of your own: --install --prefix ~/.local (and put ~/.local/bin on PATH).`,
        );
      }
      console.error(installedNote(binDirectory(prefix)));
    }
    console.log(tarball);
  } catch (error) {
    console.error(`pack: ${error.message}`);
    process.exitCode = 1;
  }
}
