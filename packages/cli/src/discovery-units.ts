// The units a request is made of: a trigger file, a configuration (config.yml and the partials
// it includes) or a legacy bundle (hub.yml, its workflows and their partials), each read from a
// hub directory whose paths discovery.ts has found and judged inside the repository.
import { join, relative } from 'node:path';
import { dirPrefix, filesIn, filesUnder, readText, referenced, slashed, type FileEntry } from './discovery-files.js';
import { refusalOf, type Boundary, type Refusal } from './boundary.js';
import { includesOf } from './includes.js';

/** Where the compiler puts a bundle's files. */
export const BUNDLE_DIR = '.hub/';

/**
 * One request's worth of files. `file` is the main file's path relative to the repository root,
 * with `/` separators; `dir` is the hub directory's (`.hub/`), which partial and bundle paths are
 * under. `partialNames` are the files under the partials directory, in the paths the request
 * would give them, whether included or not: never sent, only offered to the compiler for "did
 * you mean" (CompileOptions.partialNames). `refused` are the partials its includes name that lead
 * outside the repository (or nowhere): not read, and reported at their includes.
 */
export type Unit =
  | { kind: 'trigger'; file: string; yaml: string }
  | {
      kind: 'configuration';
      file: string;
      dir: string;
      yaml: string;
      partials: FileEntry[];
      partialNames?: string[];
      refused?: Refusal[];
    }
  | { kind: 'bundle'; file: string; dir: string; files: FileEntry[]; partialNames?: string[]; refused?: Refusal[] };

export async function triggerUnit(path: string, root: string): Promise<Unit> {
  return { kind: 'trigger', file: slashed(relative(root, path)), yaml: await readText(path, root) };
}

/** config.yml in `dir`, with the partials its prompts include from `dir`/partials/ (their paths relative to it). */
export async function configurationUnit(dir: string, boundary: Boundary, refused: Refusal[]): Promise<Unit> {
  const { root } = boundary;
  const file = join(dir, 'config.yml');
  const yaml = await readText(file, root);
  const partialDir = join(dir, 'partials');
  const own: Refusal[] = [];
  const includes = includesOf(yaml, 'configuration');
  const readable = partialsReadable(partialDir, includes, boundary, own, refused);
  const partials = readable ? await referenced(partialDir, includes, boundary, own) : [];
  const partialNames = readable ? await filesUnder(partialDir) : [];
  return {
    kind: 'configuration',
    file: slashed(relative(root, file)),
    dir: dirPrefix(dir, root),
    yaml,
    partials,
    partialNames,
    ...(own.length > 0 ? { refused: own } : {}),
  };
}

/**
 * Whether the partials directory may be read: not when it leads outside the repository (or
 * nowhere); then each include is refused at its place, or with no include the directory once.
 */
function partialsReadable(
  dir: string,
  includes: string[],
  boundary: Boundary,
  own: Refusal[],
  refused: Refusal[],
): boolean {
  const refusal = refusalOf(dir, boundary);
  if (refusal === undefined) return true;
  if (includes.length === 0) refused.push(refusal);
  for (const include of includes) own.push({ ...refusal, include });
  return false;
}

/**
 * hub.yml in `dir`, the workflows directly in `dir`/workflows/, and the partials they include
 * (include paths are relative to workflows/ and lead into workflows/partials/), under the
 * compiler's bundle paths (.hub/...).
 */
export async function bundleUnit(dir: string, boundary: Boundary, notes: string[], refused: Refusal[]): Promise<Unit> {
  const { root } = boundary;
  const workflowDir = join(dir, 'workflows');
  const files: FileEntry[] = [{ path: `${BUNDLE_DIR}hub.yml`, content: await readText(join(dir, 'hub.yml'), root) }];
  const includes = new Set<string>();
  for (const name of await filesIn(workflowDir, 'workflow', notes, boundary, refused)) {
    const content = await readText(join(workflowDir, name), root);
    files.push({ path: `${BUNDLE_DIR}workflows/${name}`, content });
    for (const include of includesOf(content, 'workflow')) includes.add(include);
  }
  const own: Refusal[] = [];
  const wanted = [...includes].filter((include) => include.startsWith('partials/'));
  const partialDir = join(workflowDir, 'partials');
  // Under a refused workflows/ there is nothing more to say (and no includes were read).
  const readable =
    refusalOf(workflowDir, boundary) === undefined && partialsReadable(partialDir, wanted, boundary, own, refused);
  const partials = readable ? await referenced(workflowDir, wanted, boundary, own) : [];
  files.push(
    ...partials.map((partial) => ({ path: `${BUNDLE_DIR}workflows/${partial.path}`, content: partial.content })),
  );
  const names = readable ? await filesUnder(partialDir) : [];
  return {
    kind: 'bundle',
    file: slashed(relative(root, join(dir, 'hub.yml'))),
    dir: dirPrefix(dir, root),
    files,
    partialNames: names.map((name) => `${BUNDLE_DIR}workflows/partials/${name}`),
    ...(own.length > 0 ? { refused: own } : {}),
  };
}
