import { describe, expect, it } from 'vitest';
import { checkCron, describeCron } from '../src/index.js';

/** The problems of a cron as [the text they point at, the message]. */
const problems = (cron: string) =>
  checkCron(cron).map((problem) => [cron.slice(problem.offset, problem.offset + problem.length), problem.message]);

describe('checkCron', () => {
  it.each([
    '* * * * *',
    '30 2 * * 1-5',
    '*/15 9-17 * * mon-fri',
    '0 0 1,15 * *',
    '0 0 * jan-mar,dec 0',
    '0 0 * * 7',
    '0 0 * * fri-sun',
    '0 0 * * SAT',
    '5-59/10 0-23/2 1-31/3 1-12/4 0-7/2',
    '0\t0  *  *\t*',
    ' 0 0 * * * ',
    '0 0 29 2 *',
    '0 0 30 2 1',
    '@hourly',
    '@daily',
    '@weekly',
    '@monthly',
    '@yearly',
    '@Daily',
  ])('accepts %j', (cron) => {
    expect(checkCron(cron)).toEqual([]);
  });

  it.each([
    ['60 * * * *', '60', 'The minute field: 60 is outside 0-59.'],
    ['0 24 * * *', '24', 'The hour field: 24 is outside 0-23.'],
    ['0 0 0 * *', '0', 'The day-of-month field: 0 is outside 1-31.'],
    ['0 0 32 * *', '32', 'The day-of-month field: 32 is outside 1-31.'],
    ['0 0 * 13 *', '13', 'The month field: 13 is outside 1-12.'],
    ['0 0 * * 8', '8', 'The day-of-week field: 8 is outside 0-7 (0 and 7 are Sunday).'],
    ['0 0 * * 1,2,9', '9', 'The day-of-week field: 9 is outside 0-7 (0 and 7 are Sunday).'],
    ['0 2-30 * * *', '30', 'The hour field: 30 is outside 0-23.'],
  ])('refuses %j at the number out of range', (cron, at, message) => {
    expect(problems(cron)).toEqual([[at, message]]);
  });

  it.each([
    ['5-1 * * * *', '5-1', 'The minute field: the range 5-1 runs backwards; write the lower value first.'],
    [
      '0 0 * * 5-0',
      '5-0',
      'The day-of-week field: the range 5-0 runs backwards; write the lower value first (write 7 for Sunday at the end of a range).',
    ],
    ['0 0 * dec-jan *', 'dec-jan', 'The month field: the range dec-jan runs backwards; write the lower value first.'],
    ['*/0 * * * *', '0', 'The minute field: a step of 0 never moves on; write 1 or more.'],
    ['0 1-5/0 * * *', '0', 'The hour field: a step of 0 never moves on; write 1 or more.'],
    ['*/61 * * * *', '61', "The minute field: a step of 61 is larger than the field's 60 values."],
    ['0 0 * * */8', '8', "The day-of-week field: a step of 8 is larger than the field's 7 values."],
    ['5/15 * * * *', '5/15', 'The minute field: a step needs * or a range before it, such as */15 or 5-59/15.'],
    ['*/x * * * *', 'x', 'The minute field: the step "x" after / is not a number.'],
    ['1,,2 * * * *', ',', 'The minute field: a list has an empty item.'],
    ['abc * * * *', 'abc', 'The minute field: "abc" is not a number from 0 to 59.'],
    ['0 mon * * *', 'mon', 'The hour field: "mon" is not a number from 0 to 23.'],
    ['0 0 * * tues', 'tues', 'The day-of-week field: "tues" is not a day name; did you mean "tue"?'],
    ['0 0 * * tuesday', 'tuesday', 'The day-of-week field: "tuesday" is not a day name; did you mean "tue"?'],
    ['0 0 * sept *', 'sept', 'The month field: "sept" is not a month name; did you mean "sep"?'],
    [
      '0 0 * * xyz',
      'xyz',
      'The day-of-week field: "xyz" is not a day name; the names are sun, mon, tue, wed, thu, fri, sat.',
    ],
    ['0 0 L * *', 'L', 'The day-of-month field: L (the last day) is not supported in "L".'],
    ['0 0 * * 5L', '5L', 'The day-of-week field: L (the last day) is not supported in "5L".'],
    ['0 0 15W * *', '15W', 'The day-of-month field: W (the nearest weekday) is not supported in "15W".'],
    ['0 0 * * 1#2', '1#2', 'The day-of-week field: # (the nth weekday of a month) is not supported in "1#2".'],
    ['0 0 ? * 1', '?', 'The day-of-month field: ? is not supported; write * for any value.'],
    ['0 0 30 2 *', '30', 'The day-of-month field: feb has no day 30, so this cron never fires.'],
    ['0 0 31 4,6 *', '31', 'The day-of-month field: apr, jun have no day 31, so this cron never fires.'],
  ])('refuses %j at %j', (cron, at, message) => {
    expect(problems(cron)).toEqual([[at, message]]);
  });

  it('reports six or seven fields at the first field too many, and too few over the whole string', () => {
    expect(problems('0 30 2 * * *')).toEqual([
      [
        '*',
        "The cron has 6 fields; a schedule's cron has five (minute, hour, day of month, month and day of week): no seconds, no year.",
      ],
    ]);
    expect(problems('0 30 2 * * * 2027')[0]?.[0]).toBe('* 2027');
    expect(problems('0 2 * *')).toEqual([
      ['0 2 * *', 'The cron has 4 fields; it needs five: minute, hour, day of month, month and day of week.'],
    ]);
    expect(problems('')).toEqual([
      ['', 'The cron is empty: write five fields, such as "30 2 * * 1-5", or a nickname such as @daily.'],
    ]);
  });

  it('reports each field in error, in order', () => {
    expect(problems('61 3 * 0 *').map(([at]) => at)).toEqual(['61', '0']);
    expect(checkCron('61 3 * 0 *').map((problem) => problem.offset)).toEqual([0, 7]);
  });

  it('refuses nicknames DECISIONS.md does not list, naming the one that means the same', () => {
    expect(checkCron('@annually')).toEqual([expect.objectContaining({ offset: 0, length: 9, suggestion: '@yearly' })]);
    expect(checkCron('@midnight')[0]?.suggestion).toBe('@daily');
    expect(checkCron('@dayly')[0]?.suggestion).toBe('@daily');
    expect(checkCron('@reboot')[0]?.suggestion).toBeUndefined();
    expect(problems('@daily 5')).toEqual([['5', 'A nickname such as @daily stands alone: nothing may follow it.']]);
  });

  it('gives the name a "did you mean" names as data', () => {
    expect(checkCron('0 0 * * mon,tues')).toEqual([
      expect.objectContaining({ offset: 12, length: 4, suggestion: 'tue' }),
    ]);
  });
});

describe('describeCron', () => {
  it.each([
    ['* * * * *', 'every minute'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['*/7 * * * *', 'every hour at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56'],
    ['5 * * * *', 'every hour at minute 5'],
    ['* 9 * * *', 'every minute from 09:00 to 09:59'],
    ['30 2 * * 1-5', 'at 02:30 on Monday to Friday'],
    ['30 2 * * *', 'at 02:30 every day'],
    ['0 9,17 * * *', 'at 09:00 and 17:00 every day'],
    ['*/15 9-17 * * mon-fri', 'every 15 minutes from 09:00 to 17:45 on Monday to Friday'],
    ['0 */2 * * *', 'every 2 hours from 00:00'],
    ['0 0 1,15 * *', 'at 00:00 on days 1 and 15 of the month'],
    ['0 0 13 * fri', 'at 00:00 on day 13 of the month or on Friday'],
    ['0 0 * jun-aug 5-7', 'at 00:00 on Friday to Sunday in June to August'],
    ['0 0 * * 0,6', 'at 00:00 on Saturday and Sunday'],
    ['0 0 1-31 * 1', 'at 00:00 every day'],
    ['0 12 * * 0-6', 'at 12:00 every day'],
    ['0 0 29 2 *', 'at 00:00 on February 29'],
    ['0,30 8-10,14 * * *', 'at minutes 0 and 30 of hours 8 to 10 and 14 every day'],
    ['@hourly', 'every hour at minute 0'],
    ['@daily', 'at 00:00 every day'],
    ['@weekly', 'at 00:00 on Sunday'],
    ['@monthly', 'at 00:00 on day 1 of the month'],
    ['@yearly', 'at 00:00 on January 1'],
  ])('%j is %j', (cron, words) => {
    expect(describeCron(cron)).toBe(words);
  });

  it('says nothing of a cron that is not valid', () => {
    expect(describeCron('0 24 * * *')).toBe('');
    expect(describeCron(42 as unknown as string)).toBe('');
  });
});
