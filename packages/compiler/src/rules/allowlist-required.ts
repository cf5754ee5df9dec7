import { listAnd } from '../issues/suggest.js';
import { field, isRecord } from '../model/draft.js';
import { reportAt, type RuleContext } from './context.js';

/** The kinds whose runs a person starts, and so whose triggers say who may. */
const FILTERED = ['manual.run', 'github.mention', 'github.label'];

/**
 * A trigger with manual.run, github.mention or github.label must say who may start it:
 * filters.from_users, non-empty; for the GitHub kinds its entries are GitHub logins. A
 * schedule-only trigger needs none: schedule runs are not filtered (DECISIONS.md, "Runs that no
 * person dispatches").
 */
export function allowlistRequired(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    const on = trigger.on.value;
    const kinds = isRecord(on) ? FILTERED.filter((kind) => Object.hasOwn(on, kind)) : [];
    if (kinds.length === 0) continue;
    const filters = trigger.filters;
    const users = field(filters, 'from_users');
    if (filters.value !== undefined && !isRecord(filters.value)) continue;
    if (users.value !== undefined && !Array.isArray(users.value)) continue;
    if (Array.isArray(users.value) && users.value.length > 0) continue;
    const who = [
      kinds.includes('manual.run') ? 'the actors allowed to dispatch it' : '',
      kinds.some((kind) => kind.startsWith('github.'))
        ? `the GitHub logins allowed to start it from GitHub (compared case-insensitively)`
        : '',
    ].filter((part) => part !== '');
    reportAt(
      context.issues,
      'trigger.allowlist_required',
      `A trigger with ${listAnd(kinds)} needs filters.from_users: a non-empty list of ${who.join(', and ')}.`,
      users,
    );
  }
}
