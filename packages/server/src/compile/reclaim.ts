import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Under this share of its time busy, the thread that serves requests counts as quiet: a busy one
 * allocates, so V8 collects on its own, and a forced full collection (tens of ms, up to a few
 * hundred on a loaded machine, with every request waiting) would only add to its requests' delay.
 */
const QUIET_UTILIZATION = 0.2;

/**
 * Hands the memory that large compiles leave behind back to the system once the hub has been
 * quiet for `quietMs`. A 1,000,000-character install leaves tens of MB of dead objects on the
 * thread that serves requests (the body, its parse, the model); V8 keeps the heap it grew until
 * its next full collection, which an idle server may not reach for hours, so the process would
 * sit at its peak. One full collection, at most once per burst and only when the hub is quiet:
 * no compile in flight (`busy()`) and the event loop busy less than a fifth of the last
 * `quietMs`; otherwise it looks again every quarter of `quietMs` (the event loop's share over
 * that quarter), so that it comes soon after the load stops. See docs/decisions.md.
 */
export function createReclaimer(
  quietMs: number,
  busy: () => boolean = () => false,
): { afterLargeWork(): void; close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let collect: (() => void) | undefined;
  let since = performance.eventLoopUtilization();
  const arm = (afterMs: number) => {
    if (timer !== undefined) clearTimeout(timer);
    since = performance.eventLoopUtilization();
    timer = setTimeout(() => {
      timer = undefined;
      if (busy() || performance.eventLoopUtilization(since).utilization >= QUIET_UTILIZATION) return arm(quietMs / 4);
      collect ??= fullCollection();
      collect();
    }, afterMs);
    timer.unref();
  };
  return {
    afterLargeWork: () => arm(quietMs),
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
