import { field, scheduleEntries } from '../model/draft.js';
import { checkZone } from '../schedule/timezone.js';
import { reportAt, type RuleContext } from './context.js';

/** A schedule entry's timezone is an IANA name the runtime knows, in its own case. */
export function scheduleTimezone(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    for (const entry of scheduleEntries(trigger)) {
      const timezone = field(entry, 'timezone');
      if (typeof timezone.value !== 'string') continue;
      const check = checkZone(timezone.value);
      if (check.ok) continue;
      reportAt(context.issues, 'schedule.timezone', { message: check.message, suggestion: check.suggestion }, timezone);
    }
  }
}
