-- The dashboard shows the work (issue 25): a person starts and cancels runs from the dashboard,
-- with their session rather than a key, and projects' creation, deactivation and reactivation are audited.

-- A run is dispatched by a key (the API, the CLI) or by a person in the dashboard: exactly one.
alter table trigger_runs
  alter column api_key_id drop not null,
  add column dispatched_by_account uuid references accounts (id),
  add column cancelled_by_account uuid references accounts (id),
  add constraint trigger_runs_dispatched_by check ((api_key_id is null) <> (dispatched_by_account is null));

alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked', 'run.cancelled',
  'invitation.created', 'invitation.accepted', 'invitation.revoked', 'account.password_changed',
  'project.created', 'project.deactivated', 'project.reactivated'));
