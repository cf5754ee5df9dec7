// A worker thread of the compile pool: the compiler, off the event loop, at the lowest CPU priority
// (niceness 19) below the thread that serves requests, so that a large compile takes the CPU it leaves idle
// instead of sharing it evenly with small requests.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

lowerPriority(19);

/** Linux: /proc/thread-self names this thread's id, and setpriority on a thread id applies to that thread only. */
function lowerPriority(niceness: number): void {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return; // not Linux: every thread keeps the process's priority
  }
  if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, niceness);
}

export { runTask as default } from './tasks.js';
