// What `hub validate` and `hub deploy` find in a repository (DECISIONS.md, The YAML documents):
// .hub/triggers/*.yml (B triggers, one a request), .hub/config.yml with the partials it
// includes from .hub/partials/ (A), .hub/hub.yml with .hub/workflows/*.yml and the partials they
// include from .hub/workflows/partials/ (B legacy bundle). Contents are read byte for byte.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { closest } from '@hub/schemas';
import { CliError } from './errors.js';
import { includesOf } from './includes.js';

export interface FileEntry {
  path: string;
  content: string;
}

/**
 * One request's worth of files. `file` is the main file's path relative to the repository root,
 * with `/` separators; `dir` is the hub directory's (`.hub/`), which partial and bundle paths are
 * under. `partialNames` are the files under the partials directory, in the paths the request
 * would give them, whether included or not: never sent, only offered to the compiler for "did
 * you mean" (CompileOptions.partialNames).
 */
export type Unit =
  | { kind: 'trigger'; file: string; yaml: string }
  | { kind: 'configuration'; file: string; dir: string; yaml: string; partials: FileEntry[]; partialNames?: string[] }
  | { kind: 'bundle'; file: string; dir: string; files: FileEntry[]; partialNames?: string[] };

export interface Discovered {
  root: string;
  triggers: Unit[];
  configuration: Unit | undefined;
  bundle: Unit | undefined;
  /** Files that look meant but are not read (a trigger ending in .yaml), said once each. */
  notes: string[];
}

/** What validate's and deploy's help say about discovery. */
export const DISCOVERY_HELP = `Discovery (from the repository root: --dir, else the nearest directory from the working
directory up that holds .hub/ or .git):
  .hub/triggers/*.yml         B trigger documents, one a file (*.yaml files are not read)
  .hub/config.yml             a configuration (A), with the partials its prompts include from
                              .hub/partials/ (include paths are relative to it)
  .hub/hub.yml                a legacy bundle (B): the hub file, .hub/workflows/*.yml (not their
                              subdirectories), and the partials the workflows include from
                              .hub/workflows/partials/ (include paths are relative to workflows/)
  Only partials that a prompt includes are read, each byte for byte (a byte order mark, CRLF
  line ends and trailing spaces are kept); a file that is not UTF-8 is refused.
`;

/** The compiler's names for a bundle's files (packages/compiler/src/paths/bundle.ts). */
const BUNDLE_DIR = '.hub/';

/** `--dir`, else the nearest directory from the working directory up that holds `.hub/` or `.git`. */
export async function findRoot(dir: string | undefined): Promise<string> {
  if (dir !== undefined) {
    const root = resolve(dir);
    if (!(await kindOf(root))?.isDirectory()) throw new CliError(`--dir ${dir}: no such directory.`, 2);
    return root;
  }
  const start = resolve();
  for (let at = start; ; at = dirname(at)) {
    if ((await kindOf(join(at, '.hub')))?.isDirectory() || (await kindOf(join(at, '.git'))) !== undefined) return at;
    if (dirname(at) === at) break;
  }
  throw new CliError(
    `No repository here: neither ${start} nor a directory above it holds .hub/ or .git; give --dir.`,
    2,
  );
}

/**
 * `message` followed by discovery's notes: when nothing is found, a file that is not read is
 * often why, and the error is the one thing a person reads (the notes would come after it).
 */
export function withNotes(message: string, notes: readonly string[]): string {
  return [message, ...notes].join(' ');
}

/** Everything under `root`/.hub that validate and deploy know. */
export async function discover(root: string): Promise<Discovered> {
  const hubDir = join(root, '.hub');
  const notes: string[] = [];
  const triggerDir = join(hubDir, 'triggers');
  const triggers: Unit[] = [];
  for (const name of await filesIn(triggerDir, 'trigger', notes, root))
    triggers.push(await triggerUnit(join(triggerDir, name), root));
  const configPath = join(hubDir, 'config.yml');
  const hubPath = join(hubDir, 'hub.yml');
  // The one-file documents under another spelling: a lone `.hub/config.yaml` was a bare "Nothing to validate".
  for (const [name, what] of [
    ['config', 'the configuration is .hub/config.yml'],
    ['hub', 'the legacy bundle is .hub/hub.yml'],
  ] as const) {
    if (await isFile(join(hubDir, `${name}.yaml`)))
      notes.push(`.hub/${name}.yaml is not read: ${what}; rename it to ${name}.yml.`);
  }
  await nearMisses(hubDir, notes);
  return {
    root,
    triggers,
    configuration: (await isFile(configPath)) ? await configurationUnit(hubDir, root) : undefined,
    bundle: (await isFile(hubPath)) ? await bundleUnit(hubDir, root, notes) : undefined,
    notes,
  };
}

/**
 * The units that given paths belong to: a trigger file, a config.yml or a partial under the
 * partials/ beside it (its configuration), a hub.yml or a file under the workflows/ beside it
 * (its bundle). Each unit once, in the order first named.
 */
export async function unitsOf(paths: string[], root: string): Promise<{ units: Unit[]; notes: string[] }> {
  const units = new Map<string, Unit>();
  const notes: string[] = [];
  for (const given of paths) {
    const path = resolve(given);
    const kind = await kindOf(path);
    if (kind === undefined) throw new CliError(`${given}: no such file.`, 2);
    if (kind.isDirectory())
      throw new CliError(`${given} is a directory: give files, or --dir ${given} to validate what is found there.`, 2);
    const role = roleOf(path);
    if (role.kind === 'trigger' && !/\.ya?ml$/.test(path)) {
      throw new CliError(
        `${given} is not a hub file: give a trigger file (.yml), a config.yml, a hub.yml, a partial or a workflow.`,
        2,
      );
    }
    if (units.has(`${role.kind}:${role.at}`)) continue;
    const unit =
      role.kind === 'trigger'
        ? await triggerUnit(path, root)
        : role.kind === 'configuration'
          ? await configurationUnit(role.at, root)
          : await bundleUnit(role.at, root, notes);
    units.set(`${role.kind}:${role.at}`, unit);
  }
  return { units: [...units.values()], notes };
}

/** Where a bundle or partial path of a unit is, relative to the repository root. */
export function displayPath(unit: Unit, file: string | undefined): string {
  if (file === undefined || unit.kind === 'trigger') return unit.file;
  if (unit.kind === 'configuration') return `${unit.dir}partials/${file}`;
  return file.startsWith(BUNDLE_DIR) ? unit.dir + file.slice(BUNDLE_DIR.length) : file;
}

/** What a named file belongs to; `at` is the trigger file, or the hub directory of a configuration or bundle. */
function roleOf(path: string): { kind: Unit['kind']; at: string } {
  const parts = path.split(sep);
  const hub = parts.lastIndexOf('.hub', parts.length - 2);
  if (hub >= 0) {
    const at = parts.slice(0, hub + 1).join(sep);
    const under = parts[hub + 1];
    if (under === 'triggers') return { kind: 'trigger', at: path };
    if (under === 'partials') return { kind: 'configuration', at };
    if (under === 'workflows') return { kind: 'bundle', at };
  }
  const name = basename(path);
  if (name === 'config.yml') return { kind: 'configuration', at: dirname(path) };
  if (name === 'hub.yml') return { kind: 'bundle', at: dirname(path) };
  return { kind: 'trigger', at: path };
}

async function triggerUnit(path: string, root: string): Promise<Unit> {
  return { kind: 'trigger', file: slashed(relative(root, path)), yaml: await readText(path, root) };
}

/** config.yml in `dir`, with the partials its prompts include from `dir`/partials/ (their paths relative to it). */
async function configurationUnit(dir: string, root: string): Promise<Unit> {
  const file = join(dir, 'config.yml');
  const yaml = await readText(file, root);
  const partials = await referenced(join(dir, 'partials'), includesOf(yaml, 'configuration'), root);
  const partialNames = await filesUnder(join(dir, 'partials'));
  return {
    kind: 'configuration',
    file: slashed(relative(root, file)),
    dir: dirPrefix(dir, root),
    yaml,
    partials,
    partialNames,
  };
}

/**
 * hub.yml in `dir`, the workflows directly in `dir`/workflows/, and the partials they include
 * (include paths are relative to workflows/ and lead into workflows/partials/), under the
 * compiler's bundle paths (.hub/...).
 */
async function bundleUnit(dir: string, root: string, notes: string[]): Promise<Unit> {
  const workflowDir = join(dir, 'workflows');
  const files: FileEntry[] = [{ path: `${BUNDLE_DIR}hub.yml`, content: await readText(join(dir, 'hub.yml'), root) }];
  const includes = new Set<string>();
  for (const name of await filesIn(workflowDir, 'workflow', notes, root)) {
    const content = await readText(join(workflowDir, name), root);
    files.push({ path: `${BUNDLE_DIR}workflows/${name}`, content });
    for (const include of includesOf(content, 'workflow')) includes.add(include);
  }
  const partials = await referenced(
    workflowDir,
    [...includes].filter((include) => include.startsWith('partials/')),
    root,
  );
  files.push(
    ...partials.map((partial) => ({ path: `${BUNDLE_DIR}workflows/${partial.path}`, content: partial.content })),
  );
  const partialNames = (await filesUnder(join(workflowDir, 'partials'))).map(
    (name) => `${BUNDLE_DIR}workflows/partials/${name}`,
  );
  return {
    kind: 'bundle',
    file: slashed(relative(root, join(dir, 'hub.yml'))),
    dir: dirPrefix(dir, root),
    files,
    partialNames,
  };
}

/**
 * The files under `base` that `includes` name, exactly (same case, canonical paths only), sorted
 * by path. An include that names no file is left out: the compiler reports it where it stands.
 */
async function referenced(base: string, includes: string[], root: string): Promise<FileEntry[]> {
  const listings = new Map<string, Promise<Set<string>>>();
  const names = (dir: string) => {
    let listing = listings.get(dir);
    if (listing === undefined) {
      listing = readdir(dir).then(
        (entries) => new Set(entries),
        () => new Set<string>(),
      );
      listings.set(dir, listing);
    }
    return listing;
  };
  const found: FileEntry[] = [];
  const { checkPath } = await import('@hub/compiler');
  for (const include of [...new Set(includes)].sort()) {
    if (!checkPath(include).ok) continue;
    let dir = base;
    let present = true;
    for (const segment of include.split('/')) {
      present &&= (await names(dir)).has(segment);
      dir = join(dir, segment);
    }
    if (present && (await isFile(dir))) found.push({ path: include, content: await readText(dir, root) });
  }
  return found;
}

/** Names listed at most by filesUnder: the compiler compares no more for a suggestion. */
export const MAX_PARTIAL_NAMES = 200;
/** Directory levels filesUnder descends at most. */
export const MAX_PARTIAL_DEPTH = 8;

/**
 * The files under `base`, as `/`-separated paths relative to it, sorted; at most
 * MAX_PARTIAL_NAMES of them. Only names are read, never contents: they serve "did you mean".
 */
async function filesUnder(base: string): Promise<string[]> {
  const found: string[] = [];
  const pending: [string, number][] = [['', 0]];
  while (pending.length > 0 && found.length < MAX_PARTIAL_NAMES) {
    const [prefix, depth] = pending.shift() as [string, number];
    const entries = await readdir(join(base, prefix), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isFile()) found.push(path);
      else if (entry.isDirectory() && depth + 1 < MAX_PARTIAL_DEPTH) pending.push([path, depth + 1]);
    }
  }
  return found.slice(0, MAX_PARTIAL_NAMES).sort();
}

/** What discovery reads directly under `.hub/`. */
export const HUB_DIRECTORIES = ['triggers', 'partials', 'workflows'];
export const HUB_FILES = ['config.yml', 'hub.yml'];

/**
 * Notes an entry of `.hub/` that is a near miss of a name discovery reads and that is not there
 * (`.hub/trigger/` without `.hub/triggers/`): otherwise its files are silently not read.
 */
async function nearMisses(hubDir: string, notes: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(hubDir, { withFileTypes: true });
  } catch {
    return;
  }
  const present = new Set(entries.map((entry) => entry.name));
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const directory = entry.isDirectory();
    if (!directory && !entry.isFile()) continue;
    const known = directory ? HUB_DIRECTORIES : HUB_FILES;
    // config.yaml and hub.yaml have their own note.
    if (known.includes(entry.name) || /^(config|hub)\.yaml$/.test(entry.name)) continue;
    const meant = closest(
      entry.name,
      known.filter((name) => !present.has(name)),
    );
    const slash = directory ? '/' : '';
    if (meant !== undefined) notes.push(`.hub/${entry.name}${slash} is not read: did you mean .hub/${meant}${slash}?`);
  }
}

/** The *.yml files directly in `dir`, sorted; *.yaml ones are noted as not read. A missing `dir` has none. */
async function filesIn(dir: string, kind: 'trigger' | 'workflow', notes: string[], root: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw ioError(error, dir, root);
  }
  const files: string[] = [];
  for (const name of names) {
    if (!(await isFile(join(dir, name)))) continue;
    if (name.endsWith('.yml')) files.push(name);
    else if (name.endsWith('.yaml')) {
      notes.push(
        `${slashed(relative(root, join(dir, name)))} is not read: ${kind} files end in .yml; rename it to ${name.slice(0, -'.yaml'.length)}.yml.`,
      );
    }
  }
  return files;
}

/**
 * A file's text exactly as stored: a byte order mark, CRLF line ends and trailing spaces stay.
 * Bytes that are not UTF-8 are refused rather than replaced, which would change the document.
 */
export async function readText(path: string, root: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw ioError(error, path, root);
  }
  try {
    return new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(bytes);
  } catch {
    throw new CliError(`${slashed(relative(root, path))} is not UTF-8 text.`, 2);
  }
}

function ioError(error: unknown, path: string, root: string): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
  return new CliError(`${slashed(relative(root, path))}: ${why}.`, 2);
}

async function kindOf(path: string) {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await kindOf(path))?.isFile() ?? false;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function slashed(path: string): string {
  return path.split(sep).join('/');
}

function dirPrefix(dir: string, root: string): string {
  const path = slashed(relative(root, dir));
  return path === '' ? '' : `${path}/`;
}
