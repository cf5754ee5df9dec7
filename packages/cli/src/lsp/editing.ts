// Completion and hover are the pure functions of ./features; this module gives them a
// document's context (its kind from its path, the partials an include may name, the hub file of
// a legacy workflow), read from the open buffers over the disk.
import { dirname, join } from 'node:path';
import { checkPath } from '@hub/compiler';
import type { FeatureContext } from './features/index.js';
import type { Files } from './files.js';
import { placeOf } from './workspace.js';

export { complete, hover, TRIGGER_CHARACTERS, type FeatureContext } from './features/index.js';

/**
 * The context of the hub file at `path` with `text`: include paths of a configuration and its
 * partials are relative to .hub/partials/, a legacy workflow's to .hub/workflows/ (so they start
 * with partials/).
 */
export function contextFor(path: string, text: string, files: Files): FeatureContext | undefined {
  const place = placeOf(path);
  if (place === undefined) return undefined;
  const legacy = place.unit.startsWith('bundle:');
  const base = legacy ? join(place.hubDir, 'workflows') : join(place.hubDir, 'partials');
  // Walked only when asked for (an include's completion or hover), not on every keystroke's completion.
  let partials: string[] | undefined;
  const listed = (): string[] =>
    (partials ??= legacy ? files.tree(join(base, 'partials')).map((file) => `partials/${file}`) : files.tree(base));
  const context: FeatureContext = {
    kind: place.kind,
    text,
    now: new Date(),
    get partials() {
      return listed();
    },
    // Also a partial that is a symbolic link (the names walked list files only, as discovery's), when its path is one the hub accepts.
    readPartial: (partial) =>
      listed().includes(partial) || (checkPath(partial).ok && files.isFile(join(base, ...partial.split('/'))))
        ? files.read(join(base, ...partial.split('/')))
        : undefined,
  };
  if (place.kind === 'legacy-workflow') {
    const hubYaml = files.read(join(dirname(base), 'hub.yml'));
    if (hubYaml !== undefined) context.hubYaml = hubYaml;
  }
  return context;
}
