import { readFileSync } from 'node:fs';

/** The scheduler's time: the real clock, or the test hook's. */
export interface Clock {
  now(): number;
  /** The longest the scheduler sleeps between looks (a test clock can jump meanwhile). */
  longestSleepMs: number;
}

export const realClock: Clock = { now: () => Date.now(), longestSleepMs: 60_000 };

/**
 * The one test hook of the scheduler (docs/decisions.md, Schedules): HUB_TEST_CLOCK_FILE names a
 * file holding the time as ISO 8601 or epoch milliseconds, read at each look, so that a test
 * moves a hub's schedule across minutes, hours and daylight-saving days without waiting for them.
 * Only the scheduler reads it; every other clock of the hub stays the real one.
 */
export function clockOf(env: NodeJS.ProcessEnv): Clock {
  const file = env.HUB_TEST_CLOCK_FILE;
  if (file === undefined || file === '') return realClock;
  const now = () => {
    const text = readFileSync(file, 'utf8').trim();
    const at = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (!Number.isFinite(at)) throw new Error(`HUB_TEST_CLOCK_FILE ${file} holds no time: ${JSON.stringify(text)}`);
    return at;
  };
  return { now, longestSleepMs: 100 };
}
