-- GitHub linking (issue 27): linking and unlinking an installation, and a project's repository
-- change, are audited like the other changes of an organization; a run that GitHub started is
-- audited with the GitHub login that started it (actor kind github) and the delivery.
alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked', 'run.cancelled',
  'invitation.created', 'invitation.accepted', 'invitation.revoked', 'account.password_changed',
  'project.created', 'project.deactivated', 'project.reactivated',
  'project.repository_changed', 'github_installation.linked', 'github_installation.unlinked'));

alter table audit_events drop constraint audit_events_actor_kind_check;
alter table audit_events add constraint audit_events_actor_kind_check
  check (actor_kind in ('key', 'account', 'operator', 'daemon', 'github'));
