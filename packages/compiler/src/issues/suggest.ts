import { closest } from '@hub/schemas';

/** The closest candidate to `input`, if close enough to be a likely misspelling (@hub/schemas' `closest`). */
export const suggest: (input: string, candidates: Iterable<string>) => string | undefined = closest;

/** The end of a message that suggests `suggestion`: `; did you mean "X"?`, or '' for none. */
export function hint(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
}

/** `; did you mean "X"?` for the candidate X closest to `input`, or ''. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  return hint(closest(input, candidates));
}

/** A short list for a message: the first few names and how many more. */
export function listSome(names: readonly string[], max = 10): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/** Words joined for a message: "a", "a and b", "a, b and c". */
export function listAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
