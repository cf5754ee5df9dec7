-- `hub login`: the OAuth 2.0 device authorization grant (RFC 8628) and the CLI credentials it
-- makes. A CLI credential is an api_keys row of kind 'cli', bound to the person who approved it:
-- one table of bearer secrets, so one statement authenticates both kinds.

alter table api_keys
  add column kind text not null default 'api_key' check (kind in ('api_key', 'cli')),
  add column account_id uuid references accounts (id),
  -- The host name the CLI sent when it asked, as it sent it (printable, trimmed).
  add column host text check (length(host) between 1 and 255),
  add constraint api_keys_cli_account check ((kind = 'cli') = (account_id is not null));
create index api_keys_account on api_keys (account_id, created_at) where account_id is not null;

create table device_authorizations (
  id uuid primary key default gen_random_uuid(),
  -- SHA-256 of the device code; the code itself is never stored.
  device_digest bytea not null unique check (length(device_digest) = 32),
  -- Eight letters of RFC 8628's base-20 alphabet, without the hyphen people see.
  user_code text not null check (user_code ~ '^[BCDFGHJKLMNPQRSTVWXZ]{8}$'),
  client_id text not null,
  host text check (length(host) between 1 and 255),
  scopes text[] not null check (cardinality(scopes) > 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Seconds between polls; slow_down adds 5 (RFC 8628, section 3.5).
  poll_interval integer not null check (poll_interval between 1 and 3600),
  last_polled_at timestamptz,
  -- expired: settled unanswered (or approved and never collected) once past expires_at.
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'redeemed', 'expired')),
  -- Who decided, for which organization, and the credential the approval became.
  account_id uuid references accounts (id),
  organization_id uuid references organizations (id),
  decided_at timestamptz,
  api_key_id uuid references api_keys (id),
  check (expires_at > created_at),
  check (status not in ('approved', 'denied', 'redeemed') or decided_at is not null),
  check (status not in ('approved', 'redeemed') or organization_id is not null),
  check ((status = 'redeemed') = (api_key_id is not null))
);
-- A code people type names one request at a time among those not yet settled.
create unique index device_authorizations_user_code on device_authorizations (user_code) where status in ('pending', 'approved');
create index device_authorizations_expiry on device_authorizations (expires_at);

-- Unknown user codes typed on the verification page count like failed sign-ins.
alter table sign_in_failures drop constraint sign_in_failures_key_check;
alter table sign_in_failures add constraint sign_in_failures_key_check
  check (key like 'account:%' or key like 'address:%' or key like 'device:%');

alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked'));
