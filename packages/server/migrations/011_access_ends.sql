-- Access ends when a person leaves (issue 24): invitations become resources that can be revoked
-- (and end with their inviter's removal or demotion), and the new events are audited.

-- How an invitation ended before it was accepted: revoked by an owner, or ended with its inviter
-- (removed, left, or no longer an owner). An ended invitation is never accepted.
alter table invitations
  add column revoked_at timestamptz,
  add column revoked_by uuid references accounts (id),
  add column revoked_reason text check (revoked_reason in ('revoked', 'inviter_removed', 'inviter_demoted')),
  add constraint invitations_revoked check ((revoked_at is null) = (revoked_reason is null)),
  add constraint invitations_revoked_by check (revoked_reason = 'revoked' or revoked_by is null),
  add constraint invitations_ended_once check (revoked_at is null or consumed_at is null);
-- Invitations made before this migration by someone who is no longer an owner end now: from here
-- on, a removal or demotion ends them as it happens (becoming an owner again revives none).
update invitations i
set revoked_at = now(),
    revoked_reason = case when exists (
      select 1 from organization_members m where m.organization_id = i.organization_id and m.account_id = i.created_by
    ) then 'inviter_demoted' else 'inviter_removed' end
where consumed_at is null and revoked_at is null and not exists (
  select 1 from organization_members m
  where m.organization_id = i.organization_id and m.account_id = i.created_by and m.role = 'owner');
-- The live invitations an inviter made: what their removal or demotion ends.
create index invitations_inviter on invitations (created_by, organization_id) where consumed_at is null and revoked_at is null;

-- The daemons a person enrolled: through the CLI credential that issued their enrollment token
-- (consumed tokens included; daemons.enrollment_token_id is unique, so indexed already).
create index enrollment_tokens_key on enrollment_tokens (api_key_id);

alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked', 'run.cancelled',
  'invitation.created', 'invitation.accepted', 'invitation.revoked', 'account.password_changed'));
