import { joinPointer } from '../../src/issues/issue.js';

/** Every pointer into a value, with a few that leave it: what the readings' locators are compared on. */
export function pointersOf(value: unknown, base = '', out: string[] = []): string[] {
  out.push(base, joinPointer(base, 'absent'), joinPointer(base, 0));
  if (Array.isArray(value)) value.forEach((item, index) => pointersOf(item, joinPointer(base, index), out));
  else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value))
      pointersOf((value as Record<string, unknown>)[key], joinPointer(base, key), out);
  }
  return out;
}
