/** What each scope lets a credential do, in plain words (section 5 of the specification). */
const MEANINGS: Readonly<Record<string, string>> = {
  'projects:read': "list the organization's projects",
  'configuration:validate': 'check configurations and triggers, changing nothing',
  'configuration:install': 'install configurations and triggers, which then take effect',
  'runs:dispatch': 'start manual runs of triggers',
  'runs:read': 'read runs and their results',
  'daemons:enroll': 'connect machines to the organization as daemons',
  'audit:read': "read the organization's audit events",
  'webhooks:manage': "register and remove webhook endpoints, which receive the organization's runs and installs",
};

/** The meaning of a scope, or undefined for one this dashboard does not know (the hub may have added it). */
export const scopeMeaning = (scope: string): string | undefined => MEANINGS[scope];
