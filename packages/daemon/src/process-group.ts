// Stopping an agent with everything it started. Each agent is spawned detached, as the leader of
// its own process group; a signal to the group reaches its children and theirs.
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

const POLL_MS = 50;
/** After SIGKILL: how long to wait for the kernel to take the group down. */
const KILL_WAIT_MS = 2_000;

/** SIGTERM to the group, then SIGKILL to whatever is left after `graceMs`; resolves once none is left (or KILL_WAIT_MS after SIGKILL). */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitGone(pgid, KILL_WAIT_MS);
}

/** Whether any process of the group still runs. */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  return livingMembers(pgid) !== 0;
}

/** Sends `signal` to the group; false when the group has no member left (ESRCH) or none this user may signal (EPERM). */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return true;
}

/**
 * Members of the group that are not zombies, from /proc; where there is no /proc (macOS), the
 * signal's answer stands. A killed grandchild whose parent died is a zombie until init reaps it,
 * and some inits (in containers) never do: it is gone all the same, and kill(2) cannot tell.
 */
function livingMembers(pgid: number): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let living = 0;
  for (const pid of pids) {
    const stat = processStat(pid);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z') living++;
  }
  return living;
}

/** State and process group from /proc/PID/stat; the command name may hold spaces and parentheses, so fields are counted from the last ')'. */
function processStat(pid: string): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}
