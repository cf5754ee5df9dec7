-- People: accounts, their organizations, their sessions, and what signing in and setting up
-- need. Secrets (sessions, setup and invitation links) are kept only as SHA-256 digests.

create table accounts (
  id uuid primary key default gen_random_uuid(),
  -- Stored trimmed and lower-cased (NFC), so that uniqueness is case-insensitive.
  email text not null unique
    check (email = lower(email) and email = btrim(email) and length(email) between 3 and 254 and position('@' in email) > 1),
  name text not null check (length(name) between 1 and 200),
  -- scrypt$N$r$p$salt$hash (base64url): the parameters travel with the hash.
  password_hash text not null check (password_hash like 'scrypt$%'),
  created_at timestamptz not null default now()
);

create table organization_members (
  organization_id uuid not null references organizations (id),
  account_id uuid not null references accounts (id),
  role text not null check (role in ('owner', 'member')),
  created_at timestamptz not null default now(),
  primary key (organization_id, account_id)
);
create index organization_members_account on organization_members (account_id);

create table sessions (
  id uuid primary key default gen_random_uuid(),
  -- SHA-256 of the cookie's secret; the secret itself is never stored.
  digest bytea not null unique check (length(digest) = 32),
  account_id uuid not null references accounts (id),
  -- The organization the session works in: always one of the account's own, and forgotten
  -- (not the session) when the membership goes.
  organization_id uuid,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  -- Absolute expiry; idle expiry is last_seen_at plus the hub's idle time.
  expires_at timestamptz not null,
  revoked_at timestamptz,
  check (expires_at > created_at and last_seen_at >= created_at),
  foreign key (organization_id, account_id) references organization_members (organization_id, account_id)
    on delete set null (organization_id)
);
create index sessions_account on sessions (account_id) where revoked_at is null;

-- One row per failed sign-in (and per attempt in progress), by account and by address:
-- throttling counts them across every hub instance.
create table sign_in_failures (
  id bigint generated always as identity primary key,
  key text not null check (key like 'account:%' or key like 'address:%'),
  failed_at timestamptz not null
);
create index sign_in_failures_key on sign_in_failures (key, failed_at);
create index sign_in_failures_age on sign_in_failures (failed_at);

-- The one-time link printed at first start.
create table setup_tokens (
  id uuid primary key default gen_random_uuid(),
  digest bytea not null unique check (length(digest) = 32),
  created_at timestamptz not null default now(),
  consumed_at timestamptz
);
-- At most one live (unconsumed) setup token: instances starting together issue one between them.
create unique index setup_tokens_one_live on setup_tokens ((true)) where consumed_at is null;

create table invitations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  digest bytea not null unique check (length(digest) = 32),
  role text not null check (role in ('owner', 'member')),
  created_by uuid not null references accounts (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz,
  consumed_by uuid references accounts (id),
  check (expires_at > created_at),
  check ((consumed_at is null) = (consumed_by is null))
);
create index invitations_organization on invitations (organization_id, created_at);

-- Who made a key in the dashboard; null for keys made through the operator API.
alter table api_keys add column created_by_account_id uuid references accounts (id);
