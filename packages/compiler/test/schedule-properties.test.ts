import { Cron } from 'croner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCron, nextFireTimes } from '../src/index.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** How far the minute-by-minute comparison looks past `after`: a day of minutes. */
const WINDOW = 24 * HOUR;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Spec {
  min: number;
  max: number;
  size: number;
  /** A value written as a name, if the field has names. */
  name?: (value: number, rangeEnd: boolean) => string;
}

const SPECS: Spec[] = [
  { min: 0, max: 59, size: 60 },
  { min: 0, max: 23, size: 24 },
  { min: 1, max: 31, size: 31 },
  { min: 1, max: 12, size: 12, name: (value) => MONTHS[value - 1] as string },
  // 7 is Sunday's name only at the end of a range (sun-sat would be 0-6).
  { min: 0, max: 7, size: 7, name: (value, end) => (value === 7 && !end ? '7' : (DAYS[value % 7] as string)) },
];

/** One item of a field, from DECISIONS.md's grammar: *, a, a-b, *\/n, a-b/n, with names where the field has them. */
function item(spec: Spec): fc.Arbitrary<string> {
  const value = fc.integer({ min: spec.min, max: spec.max });
  const write = (n: number, end: boolean, named: boolean) => (named && spec.name ? spec.name(n, end) : String(n));
  const range = fc.tuple(value, value, fc.boolean()).map(([a, b, named]) => {
    const [low, high] = a <= b ? [a, b] : [b, a];
    return `${write(low, false, named)}-${write(high, true, named)}`;
  });
  const step = fc.integer({ min: 1, max: spec.size });
  return fc.oneof(
    fc.constant('*'),
    fc.tuple(value, fc.boolean()).map(([n, named]) => write(n, false, named)),
    range,
    step.map((n) => `*/${n}`),
    fc.tuple(range, step).map(([r, n]) => `${r}/${n}`),
  );
}

const field = (spec: Spec) => fc.array(item(spec), { minLength: 1, maxLength: 3 }).map((items) => items.join(','));

/** A cron from the grammar, mostly fields and sometimes a nickname. */
const cron = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(...SPECS.map(field)).map((fields) => fields.join(' ')) },
  { weight: 1, arbitrary: fc.constantFrom('@hourly', '@daily', '@weekly', '@monthly', '@yearly') },
);

const zone = fc.constantFrom(
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'America/Sao_Paulo',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'Europe/London',
);

/** An instant from 2020 to 2035, not on a minute boundary as often as on one. */
const after = fc
  .tuple(
    fc.integer({ min: Date.UTC(2020, 0, 1) / MINUTE, max: Date.UTC(2035, 0, 1) / MINUTE }),
    fc.constantFrom(0, 1, 30_000, 59_999),
  )
  .map(([minute, ms]) => new Date(minute * MINUTE + ms));

const formats = new Map<string, Intl.DateTimeFormat>();

function offsetAt(timeZone: string, instant: number): string {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formats.set(timeZone, format);
  }
  return format.formatToParts(new Date(instant)).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

/** Whether the zone's offset is the same over [from, to], looked at hour by hour. */
function steady(timeZone: string, from: number, to: number): boolean {
  const first = offsetAt(timeZone, from);
  for (let at = from; at <= to + HOUR; at += HOUR) if (offsetAt(timeZone, Math.min(at, to)) !== first) return false;
  return true;
}

describe('schedules, by property', () => {
  it('accepts every cron of the grammar (or says it never fires), and croner accepts every cron it accepts', () => {
    fc.assert(
      fc.property(cron, (expression) => {
        const problems = checkCron(expression);
        expect(problems.every((problem) => problem.message.endsWith('never fires.'))).toBe(true);
        if (problems.length === 0) expect(() => new Cron(expression, { mode: '5-part', paused: true })).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it('accepts nothing croner refuses, and points inside the string, among near-cron text', () => {
    const token = fc.stringMatching(/^[0-9*\/,\-a-zA-Z#?@]{1,6}$/);
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 7 }), (tokens) => {
        const expression = tokens.join(' ');
        const problems = checkCron(expression);
        for (const problem of problems) {
          expect(problem.offset).toBeGreaterThanOrEqual(0);
          expect(problem.offset + problem.length).toBeLessThanOrEqual(expression.length);
          expect(problem.message).toMatch(/\.$|\?$/);
        }
        if (problems.length === 0) expect(() => new Cron(expression, { mode: '5-part', paused: true })).not.toThrow();
      }),
      { numRuns: 3000 },
    );
  });

  it("gives minute boundaries, strictly increasing after `after`, that agree with croner's match minute by minute", () => {
    fc.assert(
      fc.property(cron, zone, after, (expression, timeZone, from) => {
        fc.pre(checkCron(expression).length === 0);
        const start = from.getTime();
        // Daylight saving is the DST table's (schedule-next.test.ts): here the offset holds still.
        fc.pre(steady(timeZone, start - 3 * HOUR, start + WINDOW + 3 * HOUR));
        const fires = nextFireTimes(expression, timeZone, from, 5).map((date) => date.getTime());
        let previous = start;
        for (const fire of fires) {
          expect(fire % MINUTE).toBe(0);
          expect(fire).toBeGreaterThan(previous);
          previous = fire;
        }
        const end = Math.min(start + WINDOW, fires.length === 5 ? (fires[4] as number) : Infinity);
        const pattern = new Cron(expression, { timezone: timeZone, mode: '5-part', paused: true });
        const matched: number[] = [];
        for (let at = Math.floor(start / MINUTE) * MINUTE + MINUTE; at <= end; at += MINUTE) {
          if (pattern.match(new Date(at))) matched.push(at);
        }
        expect(fires.filter((fire) => fire <= end)).toEqual(matched);
      }),
      { numRuns: 150 },
    );
  });
});
