import { defaultLimits, type Limits } from '../limits/limits.js';
import { codePointLength } from '../source/text.js';

export type PathCheck =
  | { ok: true; path: string }
  | { ok: false; code: 'path.unsafe' | 'path.noncanonical' | 'limit.path_length'; message: string };

// C0 and C1 control characters and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Whether a partial or bundle path is canonical (DECISIONS.md, Paths). Bad paths are reported,
 * never repaired: a path that could leave its directory is unsafe, any other deviation noncanonical.
 */
export function checkPath(path: unknown, limits?: Pick<Limits, 'maxPathLength'> | null): PathCheck {
  const maxPathLength = typeof limits?.maxPathLength === 'number' ? limits.maxPathLength : defaultLimits.maxPathLength;
  if (typeof path !== 'string') return noncanonical('The path is not a string.');
  if (path.length === 0) return noncanonical('The path is empty.');
  const segments = path.split('/');
  if (path.startsWith('/')) return unsafe(`The path "${show(path)}" is absolute; paths are relative.`);
  if (path.includes('\\')) return unsafe(`The path "${show(path)}" has a backslash; the separator is /.`);
  if (/^[A-Za-z]:/.test(path)) return unsafe(`The path "${show(path)}" starts with a drive prefix.`);
  if (segments.includes('..')) return unsafe(`The path "${show(path)}" has a .. segment.`);
  const length = codePointLength(path);
  if (length > maxPathLength) {
    return {
      ok: false,
      code: 'limit.path_length',
      message: `The path is ${length} characters long; the limit is ${maxPathLength}.`,
    };
  }
  if (segments.includes('')) return noncanonical(`The path "${show(path)}" has an empty segment.`);
  if (segments.includes('.')) return noncanonical(`The path "${show(path)}" has a . segment.`);
  if (CONTROL.test(path)) return noncanonical(`The path "${show(path)}" has a control character.`);
  if (!path.isWellFormed()) return noncanonical('The path is not well-formed Unicode.');
  if (path.normalize('NFC') !== path) {
    return noncanonical(`The path "${show(path)}" is not in Unicode NFC; its NFC form is "${path.normalize('NFC')}".`);
  }
  return { ok: true, path };
}

/**
 * The form under which two paths count as the same file: NFC, then case folded. Upper then
 * lower case folds most letters as Unicode's full case folding does; ß and ẞ fold to "ss".
 */
export function foldPath(path: string): string {
  return path.normalize('NFC').toUpperCase().toLowerCase().replace(/ß/g, 'ss').normalize('NFC');
}

function unsafe(message: string): PathCheck {
  return { ok: false, code: 'path.unsafe', message };
}

function noncanonical(message: string): PathCheck {
  return { ok: false, code: 'path.noncanonical', message };
}

function show(path: string): string {
  const visible = path.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return visible.length > 80 ? `${visible.slice(0, 77)}...` : visible;
}
