// Whether a process still runs. A killed process whose parent died stays a zombie when the
// machine's init does not reap it (some containers): it is gone all the same.
import { readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
