// "Did you mean": the one rule for a likely misspelling, shared by the compiler's issues, the
// CLI's commands and options, and daemon.yml's keys. It lives in schemas because every package
// may import schemas (the daemon nothing else of ours).

/** Candidates compared at most: a hint is a courtesy, never a cost that grows with the input. */
const MAX_CANDIDATES = 200;
/** Longer strings are not compared: a misspelling of a 100-character path is no typo. */
const MAX_LENGTH = 64;

/**
 * The candidate closest to `input` if it is a likely misspelling: at most 40% of its characters
 * (at least one) inserted, removed, replaced or swapped with a neighbour; a candidate differing
 * only in case is closest of all, and one equal to `input` is no misspelling of it.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  if (input.length > MAX_LENGTH) return undefined;
  const threshold = Math.max(1, Math.floor(input.length * 0.4));
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  let compared = 0;
  for (const candidate of candidates) {
    if (++compared > MAX_CANDIDATES) break;
    if (candidate === input || candidate.length > MAX_LENGTH) continue;
    const distance =
      candidate.toLowerCase() === lower ? 0.5 : editDistance(input, candidate, Math.min(threshold, bestDistance));
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance (adjacent transpositions count as one); any value above
 * `cap` is returned as cap + 1, as soon as a whole row exceeds it.
 */
export function editDistance(a: string, b: string, cap = Infinity): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (beforePrevious[j - 2] as number) + 1);
      row[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > cap) return cap + 1;
    beforePrevious = previous;
    previous = row;
  }
  return previous[b.length] as number;
}
