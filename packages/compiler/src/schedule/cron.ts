import { closest } from '@hub/schemas';
import { hint } from '../issues/suggest.js';

/** A problem in a cron string: where the offending field or token is in it, and what is wrong. */
export interface CronProblem {
  /** Offset of the field or token in the cron string (UTF-16 code units). */
  offset: number;
  length: number;
  /** One sentence naming the field, without the position. */
  message: string;
  /** The replacement a "did you mean" names, for the token at `offset`. */
  suggestion?: string;
}

export interface CronField {
  name: 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';
  min: number;
  max: number;
  /** How many values a step may span at most: croner refuses a larger step. */
  size: number;
  names?: readonly string[];
}

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59, size: 60 },
  { name: 'hour', min: 0, max: 23, size: 24 },
  { name: 'day-of-month', min: 1, max: 31, size: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    size: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day-of-week', min: 0, max: 7, size: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/** The nicknames DECISIONS.md lists, and the five fields each stands for. */
export const CRON_NICKNAMES: Readonly<Record<string, string>> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
};

/** Nicknames other crons (and croner) know, refused with the one of ours that means the same. */
const OTHER_NICKNAMES: Readonly<Record<string, string>> = { '@annually': '@yearly', '@midnight': '@daily' };

/** One item of a field's list: `*`, `a`, `a-b`, `*\/n` or `a-b/n`, with values as numbers. */
export interface CronItem {
  from: number;
  to: number;
  step: number;
  /** Written as `*` or `*\/n`. */
  star: boolean;
}

/** A cron read into its fields: each field's items and the set of values it matches. */
export interface ParsedCron {
  /** Five fields, in order; a nickname is read as the fields it stands for. */
  fields: { text: string; items: CronItem[]; values: number[] }[];
  nickname?: string;
}

export type CronReading = { ok: true; cron: ParsedCron } | { ok: false; problems: CronProblem[] };

/** The problems of a cron string, as DECISIONS.md ("Schedules") defines the language; [] when valid. */
export function checkCron(cron: string): CronProblem[] {
  const reading = readCron(cron);
  return reading.ok ? [] : reading.problems;
}

/** Reads a cron string, or says at which field or token it is wrong (at most one problem a field). */
export function readCron(cron: string): CronReading {
  const words = [...cron.matchAll(/\S+/g)].map((match) => ({ text: match[0], offset: match.index }));
  const first = words[0];
  if (first === undefined) {
    return fail(
      0,
      cron.length,
      'The cron is empty: write five fields, such as "30 2 * * 1-5", or a nickname such as @daily.',
    );
  }
  if (first.text.startsWith('@')) return readNickname(cron, words);
  if (words.length !== 5) {
    const fields = 'minute, hour, day of month, month and day of week';
    if (words.length < 5) {
      return fail(
        0,
        cron.length,
        `The cron has ${words.length} field${words.length === 1 ? '' : 's'}; it needs five: ${fields}.`,
      );
    }
    const extra = words[5] as { text: string; offset: number };
    const last = words[words.length - 1] as { text: string; offset: number };
    return fail(
      extra.offset,
      last.offset + last.text.length - extra.offset,
      `The cron has ${words.length} fields; a schedule's cron has five (${fields}): no seconds, no year.`,
    );
  }
  const problems: CronProblem[] = [];
  const fields: ParsedCron['fields'] = [];
  words.forEach((word, index) => {
    const field = CRON_FIELDS[index] as CronField;
    const items: CronItem[] = [];
    const problem = readField(word.text, field, items);
    if (problem !== undefined) problems.push({ ...problem, offset: word.offset + problem.offset });
    else fields.push({ text: word.text, items, values: valuesOf(field, items) });
  });
  if (problems.length > 0) return { ok: false, problems };
  const never = neverFires(fields);
  if (never !== undefined)
    return fail((words[2] as { offset: number }).offset, (words[2] as { text: string }).text.length, never);
  return { ok: true, cron: { fields } };
}

function readNickname(cron: string, words: { text: string; offset: number }[]): CronReading {
  const [first, second] = words as [{ text: string; offset: number }, ...{ text: string; offset: number }[]];
  if (second !== undefined) {
    return fail(
      second.offset,
      cron.trimEnd().length - second.offset,
      `A nickname such as ${first.text} stands alone: nothing may follow it.`,
    );
  }
  const name = first.text.toLowerCase();
  const fields = CRON_NICKNAMES[name];
  if (fields !== undefined) {
    const reading = readCron(fields);
    return reading.ok ? { ok: true, cron: { ...reading.cron, nickname: name } } : reading;
  }
  const suggestion = OTHER_NICKNAMES[name] ?? closest(name, Object.keys(CRON_NICKNAMES));
  const known = Object.keys(CRON_NICKNAMES).join(', ');
  return {
    ok: false,
    problems: [
      {
        offset: first.offset,
        length: first.text.length,
        message: `${first.text} is not a nickname here${hint(suggestion) || '.'} The nicknames are ${known}.`,
        ...(suggestion === undefined ? {} : { suggestion }),
      },
    ],
  };
}

function fail(offset: number, length: number, message: string): CronReading {
  return { ok: false, problems: [{ offset, length, message }] };
}

type FieldProblem = Omit<CronProblem, 'offset'> & { offset: number };

/** Reads one field into `items`; a problem's offset is relative to the field. */
function readField(text: string, field: CronField, items: CronItem[]): FieldProblem | undefined {
  let offset = 0;
  for (const item of text.split(',')) {
    const problem =
      item === ''
        ? at(offset > 0 ? -1 : 0, 1, `${label(field)}: a list has an empty item.`)
        : readItem(item, field, items);
    if (problem !== undefined) return { ...problem, offset: offset + problem.offset };
    offset += item.length + 1;
  }
  return undefined;
}

function at(offset: number, length: number, message: string, suggestion?: string): FieldProblem {
  return suggestion === undefined ? { offset, length, message } : { offset, length, message, suggestion };
}

function label(field: CronField): string {
  return `The ${field.name} field`;
}

function readItem(item: string, field: CronField, items: CronItem[]): FieldProblem | undefined {
  const unsupported = unsupportedSyntax(item, field);
  if (unsupported !== undefined) return at(0, item.length, `${label(field)}: ${unsupported}`);
  const slash = item.indexOf('/');
  const base = slash < 0 ? item : item.slice(0, slash);
  let step = 1;
  if (slash >= 0) {
    const stepText = item.slice(slash + 1);
    const stepAt = slash + 1;
    if (stepText === '') return at(slash, 1, `${label(field)}: a step needs a number after /, such as */15.`);
    if (!/^\d+$/.test(stepText)) {
      return at(
        stepAt,
        Math.max(stepText.length, 1),
        `${label(field)}: the step "${stepText}" after / is not a number.`,
      );
    }
    step = Number(stepText);
    if (step === 0) return at(stepAt, stepText.length, `${label(field)}: a step of 0 never moves on; write 1 or more.`);
    if (step > field.size) {
      return at(
        stepAt,
        stepText.length,
        `${label(field)}: a step of ${step} is larger than the field's ${field.size} values.`,
      );
    }
    if (base !== '*' && !base.includes('-')) {
      return at(
        0,
        item.length,
        `${label(field)}: a step needs * or a range before it, such as */${step} or ${base}-${field.max}/${step}.`,
      );
    }
  }
  if (base === '*') {
    items.push({ from: field.min, to: field.name === 'day-of-week' ? 6 : field.max, step, star: true });
    return undefined;
  }
  const dash = base.indexOf('-');
  const fromText = dash < 0 ? base : base.slice(0, dash);
  if (dash >= 0 && (fromText === '' || dash === base.length - 1)) {
    return at(dash, 1, `${label(field)}: a range needs a value on each side of -, such as 1-5.`);
  }
  const from = readValue(fromText, field, false);
  if (typeof from !== 'number') return at(from.offset, from.length, from.message, from.suggestion);
  if (dash < 0) {
    items.push({ from, to: from, step, star: false });
    return undefined;
  }
  const toText = base.slice(dash + 1);
  const to = readValue(toText, field, true);
  if (typeof to !== 'number') return { ...to, offset: dash + 1 + to.offset };
  if (to < from) {
    const sunday = field.name === 'day-of-week' && to === 0 ? ' (write 7 for Sunday at the end of a range)' : '';
    return at(
      0,
      base.length,
      `${label(field)}: the range ${base} runs backwards; write the lower value first${sunday}.`,
    );
  }
  items.push({ from, to, step, star: false });
  return undefined;
}

/** Syntax of other crons (Quartz, croner's extensions) that DECISIONS.md leaves out. */
function unsupportedSyntax(item: string, field: CronField): string | undefined {
  if (item.includes('?')) return '? is not supported; write * for any value.';
  if (item.includes('#')) return `# (the nth weekday of a month) is not supported in "${item}".`;
  if (/^(\d*|[a-z]{3})?l$/i.test(item) || /^lw$/i.test(item)) return `L (the last day) is not supported in "${item}".`;
  if (field.name === 'day-of-month' && /^\d+w$/i.test(item))
    return `W (the nearest weekday) is not supported in "${item}".`;
  return undefined;
}

function readValue(text: string, field: CronField, rangeEnd: boolean): number | FieldProblem {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value >= field.min && value <= field.max) return value;
    const range = field.name === 'day-of-week' ? '0-7 (0 and 7 are Sunday)' : `${field.min}-${field.max}`;
    return at(0, text.length, `${label(field)}: ${text} is outside ${range}.`);
  }
  if (text === '') return at(0, 0, `${label(field)}: a value is missing.`);
  const names = field.names;
  const lower = text.toLowerCase();
  const index = names?.indexOf(lower) ?? -1;
  // Sunday is 7 at the end of a range, as croner reads it: fri-sun is Friday to Sunday.
  if (index >= 0) return field.name === 'day-of-week' && rangeEnd && index === 0 ? 7 : field.min + index;
  if (names === undefined || !/^[a-z]+$/i.test(text)) {
    return at(0, text.length, `${label(field)}: "${text}" is not a number from ${field.min} to ${field.max}.`);
  }
  const suggestion = closest(lower, names) ?? names.find((name) => lower.length > 3 && lower.startsWith(name));
  const kind = field.name === 'month' ? 'month' : 'day';
  const rest = suggestion === undefined ? `; the names are ${names.join(', ')}.` : hint(suggestion);
  return at(0, text.length, `${label(field)}: "${text}" is not a ${kind} name${rest}`, suggestion);
}

function valuesOf(field: CronField, items: CronItem[]): number[] {
  const values = new Set<number>();
  for (const item of items) {
    for (let value = item.from; value <= item.to; value += item.step) {
      values.add(field.name === 'day-of-week' && value === 7 ? 0 : value);
    }
  }
  return [...values].sort((a, b) => a - b);
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why a cron never fires, if it does not: days of the month that none of its months has
 * (30 2 on February). When the day of week is restricted too, either matches, so it fires.
 */
function neverFires(fields: ParsedCron['fields']): string | undefined {
  const [, , days, months, weekdays] = fields;
  if (days === undefined || months === undefined || weekdays?.text !== '*') return undefined;
  const first = days.values[0] as number;
  if (months.values.some((month) => first <= (DAYS_IN_MONTH[month - 1] as number))) return undefined;
  const names = months.values.map((month) => CRON_FIELDS[3]?.names?.[month - 1]).join(', ');
  return `The day-of-month field: ${names} ${months.values.length === 1 ? 'has' : 'have'} no day ${first}, so this cron never fires.`;
}
