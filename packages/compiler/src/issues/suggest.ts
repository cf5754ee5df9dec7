/** The closest candidate to `input`, if close enough to be a likely misspelling. */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const threshold = Math.max(1, Math.floor(input.length * 0.4));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance =
      candidate.toLowerCase() === input.toLowerCase() ? 0.5 : editDistance(input, candidate, threshold);
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export function didYouMean(input: string, candidates: Iterable<string>): string {
  const found = suggest(input, candidates);
  return found === undefined ? '' : `; did you mean "${found}"?`;
}

/** Optimal string alignment distance (adjacent transpositions count as one), capped above `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (rows[i - 2] as number[])[j - 2] as number + 1);
      }
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
