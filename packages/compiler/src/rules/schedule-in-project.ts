import { field } from '../model/draft.js';
import { reportAt, type RuleContext } from './context.js';

/**
 * A schedule belongs to a project's configuration or legacy workflow: an organization trigger
 * runs in the project each dispatch names, and a tick names none (docs/decisions.md, Schedules).
 */
export function scheduleInProject(context: RuleContext): void {
  if (context.shape !== 'trigger') return;
  for (const trigger of context.draft.triggers) {
    const schedule = field(trigger.on, 'schedule');
    if (schedule.value === undefined) continue;
    reportAt(
      context.issues,
      'schedule.organization_trigger',
      'An organization trigger runs in the project that each dispatch names, and a tick names none: ' +
        'put this schedule in the configuration (.hub/config.yml) of the project it should run in.',
      schedule,
      { key: true },
    );
  }
}
