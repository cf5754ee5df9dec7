// Which tick a due schedule entry fires (DECISIONS.md, Schedules: downtime), as a table.
import { describe, expect, it } from 'vitest';
import { planTick } from '../src/schedules/index.js';

const at = (iso: string) => new Date(iso);
const plan = (cron: string, due: string, now: string, timezone = 'UTC') => {
  const { fire, skipped, next } = planTick({ cron, timezone }, at(due), at(now));
  return {
    fire: fire?.toISOString(),
    skipped: skipped && [skipped.from.toISOString(), skipped.to.toISOString()],
    next: next === 'infinity' ? next : next.toISOString(),
  };
};

describe('planTick', () => {
  it.each([
    // On time, and a little late: the due tick, nothing skipped.
    [
      '* * * * *',
      '2030-01-01T00:01:00Z',
      '2030-01-01T00:01:00.300Z',
      '2030-01-01T00:01:00.000Z',
      undefined,
      '2030-01-01T00:02:00.000Z',
    ],
    [
      '0 3 * * *',
      '2030-01-01T03:00:00Z',
      '2030-01-01T03:40:00Z',
      '2030-01-01T03:00:00.000Z',
      undefined,
      '2030-01-02T03:00:00.000Z',
    ],
    // A downtime over two ticks: the latest fires, the one before is skipped.
    [
      '* * * * *',
      '2030-01-01T00:06:00Z',
      '2030-01-01T00:07:30Z',
      '2030-01-01T00:07:00.000Z',
      ['2030-01-01T00:06:00.000Z', '2030-01-01T00:07:00.000Z'],
      '2030-01-01T00:08:00.000Z',
    ],
    // A day down: the latest tick of the last hour fires.
    [
      '*/10 * * * *',
      '2030-01-01T00:00:00Z',
      '2030-01-02T05:05:00Z',
      '2030-01-02T05:00:00.000Z',
      ['2030-01-01T00:00:00.000Z', '2030-01-02T05:00:00.000Z'],
      '2030-01-02T05:10:00.000Z',
    ],
    // Over an hour late, with no later tick: nothing fires.
    [
      '0 3 * * *',
      '2030-01-01T03:00:00Z',
      '2030-01-01T04:30:00Z',
      undefined,
      ['2030-01-01T03:00:00.000Z', '2030-01-01T04:30:00.000Z'],
      '2030-01-02T03:00:00.000Z',
    ],
    [
      '0 3 * * *',
      '2030-01-01T03:00:00Z',
      '2030-01-03T04:30:00Z',
      undefined,
      ['2030-01-01T03:00:00.000Z', '2030-01-03T04:30:00.000Z'],
      '2030-01-04T03:00:00.000Z',
    ],
    // In a zone: 03:00 in Berlin is 02:00 UTC in winter.
    [
      '0 3 * * *',
      '2030-01-01T02:00:00Z',
      '2030-01-01T02:00:01Z',
      '2030-01-01T02:00:00.000Z',
      undefined,
      '2030-01-02T02:00:00.000Z',
      'Europe/Berlin',
    ],
  ])('%s due %s at %s', (cron, due, now, fire, skipped, next, timezone = 'UTC') => {
    expect(plan(cron, due, now, timezone)).toEqual({ fire, skipped, next });
  });

  it('fires a leap day, and looks four years ahead for the next', () => {
    expect(plan('0 0 29 2 *', '2028-02-29T00:00:00Z', '2028-02-29T00:00:01Z')).toEqual({
      fire: '2028-02-29T00:00:00.000Z',
      skipped: undefined,
      next: '2032-02-29T00:00:00.000Z',
    });
  });
});
