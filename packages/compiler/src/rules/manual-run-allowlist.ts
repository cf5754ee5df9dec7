import { field, isRecord } from '../model/draft.js';
import { reportAt, type RuleContext } from './context.js';

/**
 * A manual.run trigger must say who may dispatch it: filters.from_users, non-empty. A schedule-only
 * trigger needs none: schedule runs are not filtered (DECISIONS.md, "Runs that no person dispatches").
 */
export function manualRunAllowlist(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    if (!isRecord(trigger.on.value) || !Object.hasOwn(trigger.on.value, 'manual.run')) continue;
    const filters = trigger.filters;
    const users = field(filters, 'from_users');
    if (filters.value !== undefined && !isRecord(filters.value)) continue;
    if (users.value !== undefined && !Array.isArray(users.value)) continue;
    if (Array.isArray(users.value) && users.value.length > 0) continue;
    reportAt(
      context.issues,
      'trigger.allowlist_required',
      'A manual.run trigger needs filters.from_users: a non-empty list of the actors allowed to dispatch it.',
      users,
    );
  }
}
