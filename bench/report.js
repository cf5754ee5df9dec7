// @ts-check
// What the in-process benchmarks share: a refusal to time the wrong thing, quantiles of sorted
// samples, and a plain text table.

/**
 * @param {boolean} condition
 * @param {string} message
 * @returns {asserts condition}
 */
export function check(condition, message) {
  if (!condition) throw new Error(`bench: ${message}`);
}

/**
 * @param {number[]} sorted
 * @param {number} q
 */
export function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] ?? 0) + ((sorted[high] ?? 0) - (sorted[low] ?? 0)) * (at - low);
}

/**
 * @param {(string | number)[][]} rows
 * @param {('l' | 'r')[]} align
 */
export function table(rows, align) {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => String(row[column]).length))) ?? [];
  const line = (/** @type {(string | number)[]} */ row) =>
    row.map((cell, column) => (align[column] === 'r' ? String(cell).padStart(widths[column] ?? 0) : String(cell).padEnd(widths[column] ?? 0))).join('  ');
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}
