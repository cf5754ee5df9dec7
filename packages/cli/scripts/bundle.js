// Bundles the built CLI (dist/main.js, after `tsc -b`) into dist/bundle/, which is what `hub`
// runs (package.json "bin"): loading a few files instead of ~150 modules (yaml's 74 CommonJS files,
// the compiler's 41 modules) is most of what `hub validate` spends before it starts to work.
//   node scripts/bundle.js             writes dist/bundle/
//   node scripts/bundle.js --if-stale  only when a bundled file or this script is newer than the bundle
// Each command is its own chunk (cli.ts imports them lazily), so `hub --help` loads the entry and
// the start chunk alone, and `hub validate` its own chunk, the compiler's and yaml's besides.
// dist/bundle/modules.json lists the modules of each chunk, for the start-up test and the
// staleness check.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = join(root, 'dist/bundle');
const MANIFEST = join(OUT, 'modules.json');
const INPUT = join(root, 'dist/main.js');

/**
 * Files found beside a module at run time. `new URL('<relative>', import.meta.url)` is rewritten to
 * a copy in assets/; other uses of the module's location are listed here by hand, and any module
 * not listed that uses import.meta, __dirname or createRequire stops the bundle: decide first.
 */
const BESIDE = [
  // open runs its own xdg-open found beside its module (else the system's): keep it beside the chunk.
  { module: /[\\/]node_modules[\\/]open[\\/]index\.js$/, files: ['xdg-open'] },
  // vscode-languageserver's files.js reads __filename only in isFileSystemCaseSensitive, which
  // `hub lsp` never calls (it resolves no modules): nothing to carry.
  { module: /[\\/]node_modules[\\/]vscode-languageserver[\\/]lib[\\/]node[\\/]files\.js$/, files: [] },
];
/**
 * Chunks beyond rolldown's own (one per lazily imported command): what the entry imports and
 * the commands share (argument parsing, errors, help) in one file, so `hub --help` reads two; the
 * compiler with discovery, and yaml, each in one, so `hub validate` reads about six instead of ten.
 * main.js and cli.js stay in the entry: main.js awaits the command at its top level, so a chunk
 * that imported the entry would wait for itself (Node exits with 13).
 */
const ENTRY_MODULES = /[\\/]cli[\\/]dist[\\/](main|cli)\.js$/;
const GROUPS = [
  { name: 'yaml', test: /[\\/]node_modules[\\/]\.pnpm[\\/]yaml@[^\\/]+[\\/]/, priority: 3 },
  { name: 'start', tags: ['$initial'], test: (id) => !ENTRY_MODULES.test(id), priority: 2 },
  {
    name: 'compiler',
    test: /[\\/]compiler[\\/]dist[\\/]|[\\/]cli[\\/]dist[\\/](check|discovery|discovery-files|includes)\.js$/,
    priority: 1,
  },
];
const LOCATION = /\bimport\.meta\b|\b__dirname\b|\b__filename\b|\bcreateRequire\b/;
const RELATIVE_URL = /new URL\((['"])(\.{1,2}\/[^'"]+)\1,\s*import\.meta\.url\)/g;

/** A rolldown plugin that carries the files the bundled modules read beside themselves. */
function besideFiles(copies) {
  return {
    name: 'hub-beside-files',
    transform(code, id) {
      // rolldown's own runtime (not a file) makes `require` for CommonJS code with createRequire: builtins only.
      if (!isAbsolute(id) || !LOCATION.test(code)) return null;
      const known = BESIDE.find((entry) => entry.module.test(id));
      if (known !== undefined) {
        for (const file of known.files) copies.set(file, join(dirname(id), file));
        return null;
      }
      const rewritten = code.replace(RELATIVE_URL, (_, quote, path) => {
        const source = fileURLToPath(new URL(path, pathToFileURL(id)));
        if (!existsSync(source)) throw new Error(`${id} reads ${path}, which does not exist`);
        const name = `assets/${asset(copies, source)}`;
        return `new URL(${quote}./${name}${quote}, import.meta.url)`;
      });
      const left = rewritten.replace(RELATIVE_URL, '');
      if (LOCATION.test(left) || left.includes('import.meta')) {
        throw new Error(
          `${relative(root, id)} uses its own location (import.meta, __dirname or createRequire) in a way the bundle does not carry; see BESIDE in scripts/bundle.js`,
        );
      }
      return rewritten;
    },
  };
}

/** The name under assets/ of `source`, the same file always getting the same name. */
function asset(copies, source) {
  for (const [name, path] of copies) if (path === source) return name.slice('assets/'.length);
  let name = basename(source);
  for (let n = 2; copies.has(`assets/${name}`); n += 1) name = `${n}-${basename(source)}`;
  copies.set(`assets/${name}`, source);
  return name;
}

/** Prints rolldown's warnings, but one that is expected: discovery imports the compiler lazily, check.js (itself lazy) statically. */
function onLog(level, log, print) {
  if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' && /compiler[\\/]dist[\\/]index\.js/.test(log.message)) return;
  print(level, log);
}

/** Writes the bundle into a new directory, then puts it in place of the old one. */
export async function bundle() {
  const copies = new Map();
  const build = await rolldown({
    input: { hub: INPUT },
    platform: 'node',
    plugins: [besideFiles(copies)],
    logLevel: 'warn',
    onLog,
  });
  const next = join(root, `dist/.bundle-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  let output;
  try {
    ({ output } = await build.write({
      dir: next,
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      codeSplitting: { groups: GROUPS },
      // Less source to compile at each start (measured: about 4 ms of `hub validate`'s ~55 ms CPU).
      minify: true,
      // No source maps: to debug, run the unbundled dist/main.js (tsc's maps) instead.
      sourcemap: false,
    }));
  } finally {
    await build.close();
  }
  for (const [name, source] of copies) {
    mkdirSync(dirname(join(next, name)), { recursive: true });
    copyFileSync(source, join(next, name));
  }
  chmodSync(join(next, 'hub.js'), 0o755);
  const chunks = Object.fromEntries(
    output
      .filter((file) => file.type === 'chunk')
      .map((chunk) => [
        chunk.fileName,
        chunk.moduleIds.filter((id) => !id.startsWith('\0')).map((id) => relative(root, id)),
      ]),
  );
  writeFileSync(join(next, 'modules.json'), `${JSON.stringify({ chunks, beside: [...copies.keys()] }, null, 2)}\n`);
  replace(next);
  return chunks;
}

/** Swaps `next` in for dist/bundle/ by renames, so that a `hub` running meanwhile (another test run) sees one or the other. */
function replace(next) {
  const old = join(root, `dist/.bundle-old-${process.pid}`);
  try {
    renameSync(OUT, old);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(next, OUT);
  } catch (error) {
    // Another run put its bundle in place between the two renames: it is built from the same files.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    rmSync(next, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/** Whether dist/bundle/ is missing or older than one of the files it was made of (or this script). */
export function stale() {
  if (!existsSync(MANIFEST)) return true;
  const built = statSync(MANIFEST).mtimeMs;
  const { chunks, beside } = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  const inputs = [
    fileURLToPath(import.meta.url),
    join(root, 'package.json'),
    INPUT,
    ...Object.values(chunks)
      .flat()
      .map((path) => join(root, path)),
  ];
  return (
    inputs.some((path) => !existsSync(path) || statSync(path).mtimeMs > built) ||
    beside.some((name) => !existsSync(join(OUT, name)))
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || stale()) {
    const chunks = await bundle();
    const count = Object.values(chunks).flat().length;
    console.log(
      `hub bundled: ${count} modules into ${Object.keys(chunks).length} files in ${relative(process.cwd(), OUT) || '.'}`,
    );
  }
}
