import { closest } from '@hub/schemas';

/** The closest candidate to `input`, if close enough to be a likely misspelling (@hub/schemas' `closest`). */
export const suggest: (input: string, candidates: Iterable<string>) => string | undefined = closest;

export function didYouMean(input: string, candidates: Iterable<string>): string {
  const found = closest(input, candidates);
  return found === undefined ? '' : `; did you mean "${found}"?`;
}

/** A short list for a message: the first few names and how many more. */
export function listSome(names: readonly string[], max = 10): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
