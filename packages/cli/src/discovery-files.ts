// The files of a hub directory as discovery (discovery.ts) reads them: byte for byte, *.yml
// only (near misses noted), and the names under a partials directory for "did you mean".
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { closest } from '@hub/schemas';
import { refusalOf, type Boundary, type Refusal } from './boundary.js';
import { CliError } from './errors.js';

export interface FileEntry {
  path: string;
  content: string;
}

/**
 * The files under `base` that `includes` name, exactly (same case, canonical paths only), sorted
 * by path. An include that names no file is left out: the compiler reports it where it stands.
 * An include whose file, or a directory on the way to it, leads outside the repository (or is a
 * broken link) is not read: it goes to `refused`, before any listing of the directory it leads to.
 */
export async function referenced(
  base: string,
  includes: string[],
  boundary: Boundary,
  refused: Refusal[],
): Promise<FileEntry[]> {
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
    let refusal: Refusal | undefined;
    for (const segment of include.split('/')) {
      present &&= (await names(dir)).has(segment);
      dir = join(dir, segment);
      refusal = present ? refusalOf(dir, boundary) : undefined;
      if (refusal !== undefined) break;
    }
    if (refusal !== undefined) refused.push({ ...refusal, include });
    else if (present && (await isFile(dir))) found.push({ path: include, content: await readText(dir, boundary.root) });
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
export async function filesUnder(base: string): Promise<string[]> {
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

/** What discovery reads directly under `.hub/` (project.yml: hub deploy's project). */
export const HUB_DIRECTORIES = ['triggers', 'partials', 'workflows'];
export const HUB_FILES = ['config.yml', 'hub.yml', 'project.yml'];

/**
 * Notes an entry of `.hub/` that is a near miss of a name discovery reads and that is not there
 * (`.hub/trigger/` without `.hub/triggers/`): otherwise its files are silently not read.
 */
export async function nearMisses(hubDir: string, notes: string[]): Promise<void> {
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

/**
 * The *.yml files directly in `dir`, sorted; *.yaml ones are noted as not read. A missing `dir`
 * has none; so has one that leads outside the repository, and a file that does goes to `refused`.
 */
export async function filesIn(
  dir: string,
  kind: 'trigger' | 'workflow',
  notes: string[],
  boundary: Boundary,
  refused: Refusal[],
): Promise<string[]> {
  const root = boundary.root;
  const refusal = refusalOf(dir, boundary);
  if (refusal !== undefined) {
    refused.push(refusal);
    return [];
  }
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw ioError(error, dir, root);
  }
  const files: string[] = [];
  for (const name of names) {
    if (!/\.ya?ml$/.test(name)) continue;
    // A link is judged before anything else is asked about what it points to.
    const refusal = refusalOf(join(dir, name), boundary);
    if (refusal !== undefined && name.endsWith('.yml')) refused.push(refusal);
    if (refusal !== undefined || !(await isFile(join(dir, name)))) continue;
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

export async function kindOf(path: string) {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

export async function isFile(path: string): Promise<boolean> {
  return (await kindOf(path))?.isFile() ?? false;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function slashed(path: string): string {
  return path.split(sep).join('/');
}

export function dirPrefix(dir: string, root: string): string {
  const path = slashed(relative(root, dir));
  return path === '' ? '' : `${path}/`;
}
