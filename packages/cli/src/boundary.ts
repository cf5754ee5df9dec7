// The repository is all that discovery reads (issue 24, finding 8): a symbolic link, or a
// directory on the way that is one, which resolves outside the repository root is refused, and
// so is a link that resolves to nothing. The check is realpath alone, made before any stat or
// read of the path, so that nothing outside is read, nor its size or kind looked at.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/** The issue codes of discovery (docs/issue-codes.md, Discovery); the compiler's are in @hub/compiler. */
export const discoveryIssueCodes = {
  'discovery.outside_repository':
    'A file or directory that discovery would read is a symbolic link (or lies under one) that resolves outside the repository.',
  'discovery.broken_link': 'A file or directory that discovery would read is a symbolic link that resolves to nothing.',
} as const;

export type DiscoveryIssueCode = keyof typeof discoveryIssueCodes;

/**
 * A path discovery does not read. `path` is relative to the repository root (`/`-separated),
 * `target` where it leads: the resolved path outside, or a broken link's own text. `include` is
 * the prompt include that named it, for a partial (the issue then stands at that include).
 */
export interface Refusal {
  code: DiscoveryIssueCode;
  path: string;
  target: string;
  include?: string;
}

/** The repository root as given and as the disk resolves it (a root under a linked /tmp stays one). */
export interface Boundary {
  root: string;
  real: string;
}

export function boundaryOf(root: string): Boundary {
  try {
    return { root, real: realpathSync(root) };
  } catch {
    return { root, real: root };
  }
}

/**
 * Why `path` must not be read, or undefined when it resolves inside the repository or does not
 * exist at all (then it is absent, as before). Only realpath, lstat and readlink of the path
 * itself are used: nothing outside is opened or stat'ed.
 */
export function refusalOf(path: string, boundary: Boundary): Refusal | undefined {
  const shown = relative(boundary.root, path).split(sep).join('/');
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    let link: string;
    try {
      if (!lstatSync(path).isSymbolicLink()) return undefined;
      link = readlinkSync(path);
    } catch {
      return undefined;
    }
    return { code: 'discovery.broken_link', path: shown, target: link };
  }
  const inside = relative(boundary.real, real);
  if (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) return undefined;
  return { code: 'discovery.outside_repository', path: shown, target: real };
}

/** The refusal in a sentence: the link and where it leads. */
export function refusalMessage(refusal: Refusal): string {
  const { code, path, target, include } = refusal;
  const what = include === undefined || path.endsWith(`/${include}`) ? path : `${path} (on the way to "${include}")`;
  return code === 'discovery.broken_link'
    ? `${what} is a symbolic link to ${target}, which does not resolve (a missing file or a loop): it is not read.`
    : `${what} resolves to ${target}, outside the repository (through a symbolic link): it is not read, nor sent.`;
}
