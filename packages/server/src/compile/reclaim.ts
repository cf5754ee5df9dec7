import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Hands the memory that large compiles leave behind back to the system once the hub has been
 * quiet for `quietMs`. A 1,000,000-character install leaves tens of MB of dead objects on the
 * thread that serves requests (the body, its parse, the model); V8 keeps the heap it grew until
 * its next full collection, which an idle server may not reach for hours, so the process would
 * sit at its peak. One full collection, at most once per burst and only after a quiet period,
 * takes some tens of milliseconds. See docs/decisions.md.
 */
export function createReclaimer(quietMs: number): { afterLargeWork(): void; close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let collect: (() => void) | undefined;
  return {
    afterLargeWork() {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        collect ??= fullCollection();
        collect();
      }, quietMs);
      timer.unref();
    },
    close() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** V8's full collection, without starting node with --expose-gc: the flag applies to contexts made after it is set. */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
