// What `hub validate` and `hub deploy` find in a repository (DECISIONS.md, The YAML documents):
// .hub/triggers/*.yml (B triggers, one a request), .hub/config.yml with the partials it
// includes from .hub/partials/ (A), .hub/hub.yml with .hub/workflows/*.yml and the partials they
// include from .hub/workflows/partials/ (B legacy bundle). Contents are read byte for byte.
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { filesIn, isFile, kindOf, nearMisses, slashed } from './discovery-files.js';
import { boundaryOf, refusalOf, type Refusal } from './boundary.js';
import { BUNDLE_DIR, bundleUnit, configurationUnit, triggerUnit, type Unit } from './discovery-units.js';
import { CliError } from './errors.js';

export type { FileEntry } from './discovery-files.js';
export type { Unit } from './discovery-units.js';

export interface Discovered {
  root: string;
  triggers: Unit[];
  configuration: Unit | undefined;
  bundle: Unit | undefined;
  /** Files that look meant but are not read (a trigger ending in .yaml), said once each. */
  notes: string[];
  /** Files and directories not read because they lead outside the repository or nowhere (a unit's partials are its own). */
  refused: Refusal[];
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
  Only the repository is read: a file or directory that is a symbolic link resolving outside
  the repository root (or to nothing) is not read, and is an issue (discovery.outside_repository,
  discovery.broken_link); hub deploy then deploys nothing.
`;

/** The compiler's names for a bundle's files (packages/compiler/src/paths/bundle.ts). */

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
  const boundary = boundaryOf(root);
  const refused: Refusal[] = [];
  const hubRefusal = refusalOf(hubDir, boundary);
  if (hubRefusal !== undefined)
    return { root, triggers: [], configuration: undefined, bundle: undefined, notes, refused: [hubRefusal] };
  const triggerDir = join(hubDir, 'triggers');
  const triggers: Unit[] = [];
  for (const name of await filesIn(triggerDir, 'trigger', notes, boundary, refused))
    triggers.push(await triggerUnit(join(triggerDir, name), root));
  const configPath = join(hubDir, 'config.yml');
  const hubPath = join(hubDir, 'hub.yml');
  const readable = async (path: string) => {
    const refusal = refusalOf(path, boundary);
    if (refusal !== undefined) refused.push(refusal);
    return refusal === undefined && (await isFile(path));
  };
  // The one-file documents under another spelling: a lone `.hub/config.yaml` was a bare "Nothing to validate".
  for (const [name, what] of [
    ['config', 'the configuration is .hub/config.yml'],
    ['hub', 'the legacy bundle is .hub/hub.yml'],
  ] as const) {
    const spelled = join(hubDir, `${name}.yaml`);
    if (refusalOf(spelled, boundary) === undefined && (await isFile(spelled)))
      notes.push(`.hub/${name}.yaml is not read: ${what}; rename it to ${name}.yml.`);
  }
  await nearMisses(hubDir, notes);
  return {
    root,
    triggers,
    configuration: (await readable(configPath)) ? await configurationUnit(hubDir, boundary, refused) : undefined,
    bundle: (await readable(hubPath)) ? await bundleUnit(hubDir, boundary, notes, refused) : undefined,
    notes,
    refused,
  };
}

/**
 * The units that given paths belong to: a trigger file, a config.yml or a partial under the
 * partials/ beside it (its configuration), a hub.yml or a file under the workflows/ beside it
 * (its bundle). Each unit once, in the order first named.
 */
export async function unitsOf(
  paths: string[],
  root: string,
): Promise<{ units: Unit[]; notes: string[]; refused: Refusal[] }> {
  const units = new Map<string, Unit>();
  const notes: string[] = [];
  const refused: Refusal[] = [];
  for (const given of paths) {
    const path = resolve(given);
    // A named file is judged within its repository: the root, or for a file elsewhere, the directory its .hub is in.
    const role = roleOf(path);
    const boundary = boundaryOf(isUnder(path, root) ? root : repositoryOf(path, role));
    const refusal = refusalOf(path, boundary);
    if (refusal !== undefined) {
      refused.push({ ...refusal, path: slashed(relative(root, path)) });
      continue;
    }
    const kind = await kindOf(path);
    if (kind === undefined) throw new CliError(`${given}: no such file.`, 2);
    if (kind.isDirectory())
      throw new CliError(`${given} is a directory: give files, or --dir ${given} to validate what is found there.`, 2);
    if (role.kind === 'trigger' && !/\.ya?ml$/.test(path)) {
      throw new CliError(
        `${given} is not a hub file: give a trigger file (.yml), a config.yml, a hub.yml, a partial or a workflow.`,
        2,
      );
    }
    if (units.has(`${role.kind}:${role.at}`)) continue;
    // A named partial or workflow brings its config.yml or hub.yml along: judged like the file named.
    if (role.kind !== 'trigger') {
      const document = join(role.at, role.kind === 'configuration' ? 'config.yml' : 'hub.yml');
      const documentRefusal = refusalOf(document, boundary);
      if (documentRefusal !== undefined) {
        refused.push({ ...documentRefusal, path: slashed(relative(root, document)) });
        continue;
      }
    }
    const unit =
      role.kind === 'trigger'
        ? await triggerUnit(path, root)
        : role.kind === 'configuration'
          ? await configurationUnit(role.at, boundary, refused)
          : await bundleUnit(role.at, boundary, notes, refused);
    units.set(`${role.kind}:${role.at}`, unit);
  }
  return { units: [...units.values()], notes, refused };
}

function isUnder(path: string, root: string): boolean {
  const inside = relative(root, path);
  return inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}

/** The directory a named file's `.hub` is in, else the file's own directory. */
function repositoryOf(path: string, role: { kind: Unit['kind']; at: string }): string {
  const parts = path.split(sep);
  const hub = parts.lastIndexOf('.hub', parts.length - 2);
  if (hub >= 0) return parts.slice(0, hub).join(sep) || sep;
  return role.kind === 'trigger' ? dirname(path) : dirname(role.at);
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
