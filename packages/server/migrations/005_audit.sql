-- The organization's events, newest first, each with the key or person that caused it. A row is
-- written in the same transaction (or statement) as the change it records. No foreign keys: an
-- audit record names what it names whatever becomes of it, and recording an event takes no lock
-- on the rows it names.
create table audit_events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  at timestamptz not null default now(),
  kind text not null check (kind in (
    'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
    'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
    'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in')),
  -- Who: a key, an account, the operator API (HUB_ADMIN_TOKEN) or a daemon (named in the subject).
  actor_kind text not null check (actor_kind in ('key', 'account', 'operator', 'daemon')),
  api_key_id uuid,
  account_id uuid,
  -- What: ids and names as they were (key id, name and prefix; project slug and version; ...).
  subject jsonb not null default '{}' check (jsonb_typeof(subject) = 'object'),
  -- Where from: sign-ins only.
  address text check (length(address) <= 100),
  check ((actor_kind = 'key') = (api_key_id is not null)),
  check ((actor_kind = 'account') = (account_id is not null))
);
-- Ascending: read backwards for "newest first". A descending index would take every new row at
-- its leftmost leaf, where concurrent inserts queue on one page (the B-tree fast path is the
-- rightmost leaf).
create index audit_events_organization_at on audit_events (organization_id, at, id);
