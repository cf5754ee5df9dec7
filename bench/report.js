// @ts-check
// What the benchmarks share: a refusal to time the wrong thing, quantiles of sorted samples, a
// plain text table, and cleaning up what a benchmark started, also on Ctrl-C.

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
    row
      .map((cell, column) =>
        align[column] === 'r' ? String(cell).padStart(widths[column] ?? 0) : String(cell).padEnd(widths[column] ?? 0),
      )
      .join('  ');
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

/**
 * Cleanups for what a benchmark starts (push to `cleanups`): `cleanUp()` runs them once, in
 * reverse order, each whatever the others did; Ctrl-C runs them and exits 130, and
 * `interrupted()` then says so (the main code should wait for that exit rather than report).
 * @param {(() => Promise<unknown> | unknown)[]} initial
 */
export function cleanupOnExit(initial) {
  const cleanups = [...initial];
  /** @type {Promise<void> | undefined} */
  let cleaning;
  let interrupted = false;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })());
  process.once('SIGINT', () => {
    interrupted = true;
    void cleanUp().then(() => process.exit(130));
  });
  return { cleanups, cleanUp, interrupted: () => interrupted };
}

/**
 * What each process a bench started printed last, and whether it still runs: for the report of a
 * bench that failed.
 * @param {Iterable<[string, { child: import('node:child_process').ChildProcess, output: () => string }]>} processes
 */
export function printProcesses(processes) {
  for (const [name, { child, output }] of processes) {
    const exited =
      child.exitCode === null && child.signalCode === null
        ? 'running'
        : `exited (${child.exitCode ?? child.signalCode})`;
    console.error(`\n${name}, ${exited}, printed:\n${output().slice(-4000) || '(nothing)'}`);
  }
}
