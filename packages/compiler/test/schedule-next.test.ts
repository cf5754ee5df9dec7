import { describe, expect, it } from 'vitest';
import { nextFireTimes } from '../src/schedule/next.js';

const fires = (cron: string, zone: string, after: string, count: number) =>
  nextFireTimes(cron, zone, new Date(after), count).map((date) => date.toISOString().replace(':00.000Z', 'Z'));

// Each row: a cron, its zone, the instant after which to look, and the fire times (UTC) expected
// by DECISIONS.md's rules: a local time in a gap fires at the first minute after the gap, and a
// local time that happens twice fires once, at its first occurrence.
describe('nextFireTimes across daylight saving', () => {
  it.each([
    // Europe/Berlin springs forward on 2026-03-29, 02:00 CET → 03:00 CEST (01:00 UTC).
    [
      '30 2 * * *',
      'Europe/Berlin',
      '2026-03-27T12:00:00Z',
      ['2026-03-28T01:30Z', '2026-03-29T01:00Z', '2026-03-30T00:30Z'],
    ],
    ['0 3 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', ['2026-03-29T01:00Z', '2026-03-30T01:00Z']],
    // Several ticks in the gap, and the first after it, are one fire at 03:00.
    [
      '*/30 * * * *',
      'Europe/Berlin',
      '2026-03-29T00:10:00Z',
      ['2026-03-29T00:30Z', '2026-03-29T01:00Z', '2026-03-29T01:30Z'],
    ],
    // Europe/Berlin falls back on 2026-10-25, 03:00 CEST → 02:00 CET (01:00 UTC): 02:30 happens twice.
    ['30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', ['2026-10-25T00:30Z', '2026-10-26T01:30Z']],
    [
      '*/20 * * * *',
      'Europe/Berlin',
      '2026-10-25T00:30:00Z',
      ['2026-10-25T00:40Z', '2026-10-25T02:00Z', '2026-10-25T02:20Z'],
    ],
    // Looking from inside the repeated hour's second occurrence: nothing more until 03:00 CET.
    ['*/20 * * * *', 'Europe/Berlin', '2026-10-25T01:05:00Z', ['2026-10-25T02:00Z', '2026-10-25T02:20Z']],
    // America/New_York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
    ['0 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:00Z']],
    ['30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
    // A 30-minute offset all year (India, +05:30), and one with a 30-minute daylight shift (Lord
    // Howe: +10:30, +11:00 from 2026-10-04 02:00, when 02:00-02:29 do not exist).
    ['0 9 * * 1-5', 'Asia/Kolkata', '2026-11-27T12:00:00Z', ['2026-11-30T03:30Z', '2026-12-01T03:30Z']],
    [
      '15 2 * * *',
      'Australia/Lord_Howe',
      '2026-10-02T12:00:00Z',
      ['2026-10-02T15:45Z', '2026-10-03T15:30Z', '2026-10-04T15:15Z'],
    ],
    // UTC, names, and a day-of-month or day-of-week match.
    ['* * * * *', 'UTC', '2026-11-27T12:00:30Z', ['2026-11-27T12:01Z', '2026-11-27T12:02Z']],
    ['@weekly', 'UTC', '2026-11-27T12:00:00Z', ['2026-11-29T00:00Z', '2026-12-06T00:00Z']],
    ['0 0 13 * fri', 'UTC', '2026-11-01T00:00:00Z', ['2026-11-06T00:00Z', '2026-11-13T00:00Z', '2026-11-20T00:00Z']],
  ])('%s in %s after %s', (cron, zone, after, expected) => {
    expect(fires(cron, zone, after, expected.length)).toEqual(expected);
  });

  it('gives nothing for a date that never comes', () => {
    expect(nextFireTimes('0 0 30 2 *', 'UTC', new Date('2026-01-01T00:00:00Z'), 1)).toEqual([]);
  });
});
