import type { IssueCode } from '../issues/codes.js';
import { field } from '../model/draft.js';
import { reportAt, type RuleContext } from './context.js';

const GITHUB = (kind: string) =>
  'GitHub events are read against the active configuration of the project that names the repository, ' +
  `and an organization trigger belongs to no project: put this ${kind} in the configuration ` +
  '(.hub/config.yml) of the project whose repository it should answer.';

/** The kinds an organization trigger cannot have, each with its code and message. */
const PROJECT_KINDS: readonly { kind: string; code: IssueCode; message: string }[] = [
  {
    kind: 'schedule',
    code: 'schedule.organization_trigger',
    message:
      'An organization trigger runs in the project that each dispatch names, and a tick names none: ' +
      'put this schedule in the configuration (.hub/config.yml) of the project it should run in.',
  },
  { kind: 'github.mention', code: 'github.organization_trigger', message: GITHUB('github.mention') },
  { kind: 'github.label', code: 'github.organization_trigger', message: GITHUB('github.label') },
];

/**
 * A schedule and the GitHub kinds belong to a project's configuration or legacy workflow: an
 * organization trigger runs in the project each dispatch names, and neither a tick nor a GitHub
 * event names one (docs/decisions.md, Schedules; DECISIONS.md, GitHub). At the kind's key.
 */
export function kindsInProject(context: RuleContext): void {
  if (context.shape !== 'trigger') return;
  for (const trigger of context.draft.triggers) {
    for (const { kind, code, message } of PROJECT_KINDS) {
      const at = field(trigger.on, kind);
      if (at.value !== undefined) reportAt(context.issues, code, message, at, { key: true });
    }
  }
}
