import { field, scheduleEntries } from '../model/draft.js';
import { readCron } from '../schedule/cron.js';
import { locateInside } from '../source/locate.js';
import { rejected, type RuleContext } from './context.js';

/**
 * A schedule entry's cron is five fields or a nickname (DECISIONS.md, "Schedules"); a mistake is
 * reported at the field or token in error inside the string, so that an editor marks it there.
 */
export function scheduleCron(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    for (const entry of scheduleEntries(trigger)) {
      const cron = field(entry, 'cron');
      if (typeof cron.value !== 'string' || rejected(cron)) continue;
      const reading = readCron(cron.value);
      if (reading.ok) continue;
      // Where the written text differs from the value, every problem is placed at the scalar's
      // start: a suggestion there would replace the whole cron, so it is given only in words.
      const exact =
        locateInside(cron.doc, cron.pointer, cron.value, 1).offset !==
        locateInside(cron.doc, cron.pointer, cron.value, 0).offset;
      for (const problem of reading.problems) {
        const where = locateInside(cron.doc, cron.pointer, cron.value, problem.offset);
        const suggestion = exact || problem.offset === 0 ? problem.suggestion : undefined;
        context.issues.add('schedule.cron', { message: problem.message, suggestion }, cron.pointer, where);
      }
    }
  }
}
