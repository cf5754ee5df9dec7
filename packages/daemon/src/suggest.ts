// "Did you mean" for daemon.yml's keys. The same rule as the compiler's `suggest` and the CLI's
// `closest`, kept here because the daemon depends on no compiler (schemas ← daemon ← cli): the
// names compared are a handful of keys, so a plain table is enough.

/**
 * The name closest to `input` if it is a likely misspelling: at most 40% of its characters (at
 * least one) inserted, removed, replaced or swapped with a neighbour; a name differing only in
 * case is closest of all.
 */
export function closest(input: string, names: readonly string[]): string | undefined {
  if (input.length > 64) return undefined;
  const threshold = Math.max(1, Math.floor(input.length * 0.4));
  let best: string | undefined;
  let bestDistance = threshold + 1;
  for (const name of names) {
    const distance = name.toLowerCase() === input.toLowerCase() ? 0.5 : editDistance(input, name);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: adjacent transpositions count as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (d[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}
