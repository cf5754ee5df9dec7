// The repository as the language server sees it: where each hub file belongs, the hub
// directories of a workspace, and the units `hub validate` would compile (discovery.ts), built
// from the files' view (files.ts). The server reports what it can and never stops on a file.
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { checkPath } from '@hub/compiler';
import { closest } from '@hub/schemas';
import type { Refusal } from '../boundary.js';
import { HUB_DIRECTORIES, HUB_FILES, MAX_PARTIAL_NAMES } from '../discovery-files.js';
import type { FileEntry, Unit } from '../discovery.js';
import type { DocumentKind } from './features/index.js';
import type { Files } from './files.js';
import { IncludeCache } from './include-cache.js';

/** A hub file's place: its hub directory (`…/.hub`), what it is, and which unit it belongs to. */
export interface Place {
  hubDir: string;
  kind: DocumentKind;
  /** `triggers:<hubDir>` (all triggers of a directory, for duplicate names), `configuration:…`, `bundle:…`. */
  unit: string;
}

/** Where `path` (absolute) stands under a `.hub` directory, or undefined for any other file. */
export function placeOf(path: string): Place | undefined {
  const parts = path.split(sep);
  const at = parts.lastIndexOf('.hub', parts.length - 2);
  if (at < 0) return undefined;
  const hubDir = parts.slice(0, at + 1).join(sep);
  const rest = parts.slice(at + 1);
  const direct = (dir: string) => rest.length === 2 && rest[0] === dir && rest[1]?.endsWith('.yml') === true;
  if (rest.length === 1 && rest[0] === 'config.yml')
    return { hubDir, kind: 'configuration', unit: `configuration:${hubDir}` };
  if (rest.length === 1 && rest[0] === 'hub.yml') return { hubDir, kind: 'legacy-hub', unit: `bundle:${hubDir}` };
  if (direct('triggers')) return { hubDir, kind: 'trigger', unit: `triggers:${hubDir}` };
  if (rest[0] === 'partials' && rest.length > 1) return { hubDir, kind: 'partial', unit: `configuration:${hubDir}` };
  if (rest[0] === 'workflows' && rest[1] === 'partials' && rest.length > 2)
    return { hubDir, kind: 'partial', unit: `bundle:${hubDir}` };
  if (direct('workflows')) return { hubDir, kind: 'legacy-workflow', unit: `bundle:${hubDir}` };
  return undefined;
}

/**
 * Why a file under `.hub` that looks meant is not read, as discovery notes it: a trigger or
 * workflow ending in `.yaml`, a `config.yaml` or `hub.yaml`, or a name close to one that is read
 * (`.hub/trigger/`). Undefined for any other file.
 */
export function unreadNote(path: string): string | undefined {
  const parts = path.split(sep);
  const at = parts.lastIndexOf('.hub', parts.length - 2);
  if (at < 0) return undefined;
  const rest = parts.slice(at + 1);
  const name = rest[rest.length - 1] ?? '';
  const renamed = `${name.slice(0, -'.yaml'.length)}.yml`;
  let why: string | undefined;
  if (!name.endsWith('.yaml')) why = undefined;
  else if (rest.length === 2 && rest[0] === 'triggers') why = 'trigger files end in .yml';
  else if (rest.length === 2 && rest[0] === 'workflows') why = 'workflow files end in .yml';
  else if (rest.length === 1 && name === 'config.yaml') why = 'the configuration is .hub/config.yml';
  else if (rest.length === 1 && name === 'hub.yaml') why = 'the legacy bundle is .hub/hub.yml';
  if (why !== undefined)
    return `This file is not read (by hub validate, hub deploy or the hub): ${why}; rename it to ${renamed}.`;
  return nearMiss(parts.slice(0, at + 1).join(sep), rest);
}

/**
 * As discovery's near misses: a file directly in `.hub` or a directory of it whose name is close
 * to one that is read and not there (`.hub/trigger/a.yml`: did you mean .hub/triggers/?).
 */
function nearMiss(hubDir: string, rest: string[]): string | undefined {
  const directory = rest.length > 1;
  const name = rest[0] ?? '';
  const known = directory ? HUB_DIRECTORIES : HUB_FILES;
  if (known.includes(name)) return undefined;
  let present: Set<string>;
  try {
    present = new Set(readdirSync(hubDir));
  } catch {
    present = new Set();
  }
  const meant = closest(
    name,
    known.filter((candidate) => !present.has(candidate)),
  );
  const slash = directory ? '/' : '';
  return meant === undefined
    ? undefined
    : `.hub/${name}${slash} is not read (by hub validate, hub deploy or the hub): did you mean .hub/${meant}${slash}?`;
}

/** Directory levels below a workspace folder searched for repositories, and directories looked into at most. */
const SEARCH_DEPTH = 4;
const SEARCH_DIRS = 5000;

/**
 * The hub directories of a workspace folder, for a first look: the repository's own `.hub`, or
 * for a folder that holds repositories (a parent of several), the `.hub` directories below it,
 * a few levels down, never inside node_modules, another hidden directory or a repository.
 */
export function hubDirsOf(folder: string, root: string): string[] {
  if (isDirectory(join(root, '.hub'))) return [join(root, '.hub')];
  const found: string[] = [];
  const pending: [string, number][] = [[folder, 0]];
  for (let visited = 0; pending.length > 0 && visited < SEARCH_DIRS; visited++) {
    const [dir, depth] = pending.shift() as [string, number];
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    // A repository is not searched further: its .hub is the one hub validate reads there, and a
    // repository without one (.git only) holds none that is its own.
    if (entries.some((entry) => entry.name === '.hub' && entry.isDirectory())) {
      found.push(join(dir, '.hub'));
      continue;
    }
    if (entries.some((entry) => entry.name === '.git')) continue;
    for (const entry of entries) {
      if (
        entry.isDirectory() &&
        depth + 1 < SEARCH_DEPTH &&
        !entry.name.startsWith('.') &&
        entry.name !== 'node_modules'
      )
        pending.push([join(dir, entry.name), depth + 1]);
    }
  }
  return found.sort();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The unit keys of a hub directory, for a first look at a workspace. */
export function unitKeys(hubDir: string): string[] {
  return ['triggers', 'configuration', 'bundle'].map((kind) => `${kind}:${hubDir}`);
}

/**
 * The units of a unit key, as discovery would build them from the disk: every trigger of the
 * directory; the configuration with the partials it includes; the bundle with its workflows and
 * their partials. None when the main file is absent. `dir` is relative to the hub directory's
 * parent, which the findings' `file` is then relative to. `includes` remembers what each
 * document included, for the next edit. `refused`: the files and directories not read because
 * they lead outside the repository or nowhere (a unit's refused partials are its own).
 */
export function unitsOf(
  key: string,
  files: Files,
  includes = new IncludeCache(),
): { root: string; units: Unit[]; refused: Refusal[] } {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  const hubDir = key.slice(colon + 1);
  const root = dirname(hubDir);
  const dir = '.hub/';
  const refused: Refusal[] = [];
  /** The file's text, unless it is refused (then noted) or absent. */
  const read = (path: string) => {
    const refusal = files.refusal(path);
    if (refusal !== undefined) refused.push(refusal);
    return refusal === undefined ? files.read(path) : undefined;
  };
  const hubRefusal = files.refusal(hubDir);
  if (hubRefusal !== undefined) return { root, units: [], refused: [hubRefusal] };
  if (kind === 'triggers') {
    const units: Unit[] = [];
    const triggers = join(hubDir, 'triggers');
    const triggersRefused = files.refusal(triggers);
    if (triggersRefused !== undefined) return { root, units, refused: [triggersRefused] };
    for (const name of files.files(triggers).filter((file) => file.endsWith('.yml'))) {
      const yaml = read(join(triggers, name));
      if (yaml !== undefined) units.push({ kind: 'trigger', file: `${dir}triggers/${name}`, yaml });
    }
    return { root, units, refused };
  }
  if (kind === 'configuration') {
    const yaml = read(join(hubDir, 'config.yml'));
    if (yaml === undefined) return { root, units: [], refused };
    const own: Refusal[] = [];
    const wanted = includes.get(join(hubDir, 'config.yml'), yaml, 'configuration');
    const partials = referenced(files, join(hubDir, 'partials'), wanted, own);
    unincluded(files, join(hubDir, 'partials'), wanted, refused);
    // Every partial's name, for the compiler's "did you mean" of an include that names none (as discovery gives it).
    const partialNames = files.tree(join(hubDir, 'partials'), MAX_PARTIAL_NAMES);
    const unit: Unit = { kind: 'configuration', file: `${dir}config.yml`, dir, yaml, partials, partialNames };
    return { root, units: [own.length > 0 ? { ...unit, refused: own } : unit], refused };
  }
  const hub = read(join(hubDir, 'hub.yml'));
  if (hub === undefined) return { root, units: [], refused };
  const entries: FileEntry[] = [{ path: '.hub/hub.yml', content: hub }];
  const included = new Set<string>();
  const workflows = join(hubDir, 'workflows');
  const workflowsRefused = files.refusal(workflows);
  if (workflowsRefused !== undefined) refused.push(workflowsRefused);
  for (const name of workflowsRefused ? [] : files.files(workflows).filter((file) => file.endsWith('.yml'))) {
    const content = read(join(workflows, name));
    if (content === undefined) continue;
    entries.push({ path: `.hub/workflows/${name}`, content });
    for (const include of includes.get(join(workflows, name), content, 'workflow')) included.add(include);
  }
  const own: Refusal[] = [];
  const wanted = [...included].filter((include) => include.startsWith('partials/'));
  const partials = referenced(files, workflows, wanted, own);
  if (workflowsRefused === undefined) unincluded(files, join(workflows, 'partials'), wanted, refused);
  entries.push(...partials.map((partial) => ({ path: `.hub/workflows/${partial.path}`, content: partial.content })));
  const partialNames = files
    .tree(join(workflows, 'partials'), MAX_PARTIAL_NAMES)
    .map((name) => `.hub/workflows/partials/${name}`);
  const unit: Unit = { kind: 'bundle', file: `${dir}hub.yml`, dir, files: entries, partialNames };
  return { root, units: [own.length > 0 ? { ...unit, refused: own } : unit], refused };
}

/** A partials directory that leads outside, refused once when no include names it (else at each include). */
function unincluded(files: Files, dir: string, includes: string[], refused: Refusal[]): void {
  const refusal = includes.length === 0 ? files.refusal(dir) : undefined;
  if (refusal !== undefined) refused.push(refusal);
}

/**
 * The files under `base` that `includes` name exactly (canonical paths only), sorted by path.
 * One that leads outside the repository (itself or a directory on the way) goes to `refused`,
 * with its include, before the directory it leads to is listed.
 */
function referenced(files: Files, base: string, includes: string[], refused: Refusal[]): FileEntry[] {
  const found: FileEntry[] = [];
  for (const include of [...new Set(includes)].sort()) {
    if (!checkPath(include).ok) continue;
    let at = base;
    let refusal = files.refusal(at);
    for (const segment of include.split('/')) {
      if (refusal !== undefined) break;
      at = join(at, segment);
      refusal = files.refusal(at);
    }
    if (refusal !== undefined) {
      refused.push({ ...refusal, include });
      continue;
    }
    const path = join(base, ...include.split('/'));
    // Same case only: on a case-insensitive disk, the hub would still not find "Testing.md" as "testing.md".
    if (!files.files(dirname(path)).includes(basename(path))) continue;
    const content = files.read(path);
    if (content !== undefined) found.push({ path: include, content });
  }
  return found;
}
