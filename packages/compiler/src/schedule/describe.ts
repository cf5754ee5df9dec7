import { readCron, type CronItem, type ParsedCron } from './cron.js';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * A cron's meaning in plain words, for an editor's hover: "at 02:30 on Monday to Friday",
 * "every 15 minutes". Simple shapes get a sentence; others are said field by field, never
 * guessed. An invalid cron gets '' (its issue says what is wrong).
 */
export function describeCron(cron: string): string {
  const reading = typeof cron === 'string' ? readCron(cron) : undefined;
  if (reading === undefined || !reading.ok) return '';
  const time = times(reading.cron);
  const dates = [days(reading.cron), months(reading.cron)].filter((part) => part !== '');
  if (dates.length === 0 && time.startsWith('at ')) dates.push('every day');
  return [time, ...dates].join(' ');
}

type Field = ParsedCron['fields'][number];

function times({ fields }: ParsedCron): string {
  const [minute, hour] = fields as [Field, Field];
  const everyHour = hour.text === '*';
  const minuteStep = stepOnly(minute, 60);
  if (minute.text === '*' && everyHour) return 'every minute';
  if (minuteStep !== undefined && everyHour) return `every ${minuteStep} minutes`;
  if (minute.text === '*') return `every minute ${hoursSpan(hour)}`;
  if (minuteStep !== undefined && run(hour.values) && hour.values.length > 1) {
    const last = (hour.values.at(-1) as number) * 60 + 60 - minuteStep;
    return `every ${minuteStep} minutes from ${clock((hour.values[0] as number) * 60)} to ${clock(last)}`;
  }
  if (minute.values.length * hour.values.length <= 6 && !everyHour) {
    const list = hour.values.flatMap((h) => minute.values.map((m) => clock(h * 60 + m)));
    return `at ${join(list)}`;
  }
  const minutes =
    minute.values.length === 1 ? `minute ${minute.values[0]}` : `minutes ${join(runs(minute.values, String))}`;
  if (everyHour) return `every hour at ${minutes}`;
  const hourStep = stepOnly(hour, 24);
  if (hourStep !== undefined && minute.values.length === 1)
    return `every ${hourStep} hours from ${clock(minute.values[0] as number)}`;
  return `at ${minutes} of hours ${join(runs(hour.values, String))}`;
}

/** n when the field is `*\/n` alone and n divides the field's span, so that it really is "every n". */
function stepOnly(field: Field, span: number): number | undefined {
  const [item, other] = field.items as [CronItem, CronItem | undefined];
  if (other !== undefined || !item.star || item.step === 1 || span % item.step !== 0) return undefined;
  return item.step;
}

function hoursSpan(hour: Field): string {
  if (run(hour.values)) {
    const first = hour.values[0] as number;
    return `from ${clock(first * 60)} to ${clock((hour.values.at(-1) as number) * 60 + 59)}`;
  }
  return `of hours ${join(runs(hour.values, String))}`;
}

function days({ fields }: ParsedCron): string {
  const [, , dom, month, dow] = fields as [Field, Field, Field, Field, Field];
  const restricted = { date: dom.text !== '*', weekday: dow.text !== '*' };
  // Croner, as other crons: when both day fields are restricted, either matches; a restricted
  // field that holds every value matches every day.
  if ((restricted.date && dom.values.length === 31) || (restricted.weekday && dow.values.length === 7)) return '';
  if (restricted.date && restricted.weekday) return `${byDate(dom)} or ${byWeekday(dow)}`;
  if (restricted.date && dom.values.length === 1 && month.values.length === 1) {
    return `on ${MONTH_NAMES[(month.values[0] as number) - 1]} ${dom.values[0]}`;
  }
  if (restricted.date) return byDate(dom);
  return restricted.weekday ? byWeekday(dow) : '';
}

function byDate(dom: Field): string {
  return `on ${dom.values.length === 1 ? 'day' : 'days'} ${join(runs(dom.values, String))} of the month`;
}

/** Weekdays from Monday, Sunday last: 5-7 reads "Friday to Sunday". */
function byWeekday(dow: Field): string {
  const weekdays = [...dow.values.filter((day) => day !== 0), ...(dow.values.includes(0) ? [7] : [])];
  return `on ${join(runs(weekdays, (day) => DAY_NAMES[day % 7] as string))}`;
}

function months({ fields }: ParsedCron): string {
  const [, , dom, month, dow] = fields as [Field, Field, Field, Field, Field];
  // "on January 1" (days) already names the month.
  if (
    month.values.length === 12 ||
    (dom.text !== '*' && dow.text === '*' && dom.values.length === 1 && month.values.length === 1)
  )
    return '';
  return `in ${join(runs(month.values, (value) => MONTH_NAMES[value - 1] as string))}`;
}

/** Whether sorted values are one run without gaps. */
function run(values: number[]): boolean {
  return values.length > 0 && (values.at(-1) as number) - (values[0] as number) === values.length - 1;
}

/** Sorted values as pieces: runs of three or more as "a to b", others one by one. */
function runs(values: number[], name: (value: number) => string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < values.length;) {
    let end = start;
    while (end + 1 < values.length && (values[end + 1] as number) === (values[end] as number) + 1) end++;
    if (end - start >= 2) pieces.push(`${name(values[start] as number)} to ${name(values[end] as number)}`);
    else for (let i = start; i <= end; i++) pieces.push(name(values[i] as number));
    start = end + 1;
  }
  return pieces;
}

function join(pieces: string[]): string {
  return pieces.length <= 1 ? (pieces[0] ?? '') : `${pieces.slice(0, -1).join(', ')} and ${pieces.at(-1)}`;
}

function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
