/** The scopes an API key can hold: the specification's five plus `runs:read` and `audit:read` (DECISIONS.md). */
export const SCOPES = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'runs:dispatch',
  'daemons:enroll',
  'runs:read',
  'audit:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
