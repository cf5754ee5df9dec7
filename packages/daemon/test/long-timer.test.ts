import { afterEach, describe, expect, it, vi } from 'vitest';
import { after } from '../src/supervisor.js';

const DAY = 24 * 60 * 60 * 1000;

describe("the supervisor's timers", () => {
  afterEach(() => vi.useRealTimers());

  it.each([
    ['an hour', 60 * 60 * 1000],
    ['24.8 days, the longest one Node arms at once', 2 ** 31 - 1],
    ['30 days (a max_runtime of 30d)', 30 * DAY],
    ['a year', 365 * DAY],
  ])('fire after %s, never before', (_name, ms) => {
    vi.useFakeTimers();
    const fire = vi.fn();
    after(ms, fire);
    vi.advanceTimersByTime(ms - 1);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('never fire once cleared, even between steps', () => {
    vi.useFakeTimers();
    const fire = vi.fn();
    const timer = after(60 * DAY, fire);
    vi.advanceTimersByTime(30 * DAY);
    timer.clear();
    vi.advanceTimersByTime(60 * DAY);
    expect(fire).not.toHaveBeenCalled();
  });
});
