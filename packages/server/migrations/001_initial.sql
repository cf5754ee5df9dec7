-- Hub's schema. Every invariant the API promises is a constraint or an index here, so that
-- several hub instances on one database behave as one.

create table organizations (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

create table projects (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  slug text not null check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text not null check (length(name) between 1 and 200),
  active boolean not null default true,
  -- The last configuration version handed out: installs take the next one under this row's lock,
  -- so versions increase from 1 without gaps, and a failed install (rolled back) uses none.
  last_version integer not null default 0,
  created_at timestamptz not null default now(),
  unique (organization_id, slug)
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null check (length(name) between 1 and 200),
  -- hub_pk_ and the first 8 characters of the secret, for people to recognise the key.
  prefix text not null,
  -- SHA-256 of the whole token; the token itself is never stored.
  digest bytea not null unique,
  scopes text[] not null check (cardinality(scopes) > 0),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_organization on api_keys (organization_id, created_at);

create table configuration_revisions (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id),
  version integer not null check (version > 0),
  -- configuration: the YAML and partials of shape A; bundle: the files of a legacy bundle.
  shape text not null check (shape in ('configuration', 'bundle')),
  yaml text,
  partials jsonb,
  files jsonb,
  model jsonb not null,
  active boolean not null default false,
  api_key_id uuid not null references api_keys (id),
  created_at timestamptz not null default now(),
  unique (project_id, version),
  check ((shape = 'configuration') = (yaml is not null)),
  check ((shape = 'bundle') = (files is not null))
);
create unique index configuration_revisions_one_active on configuration_revisions (project_id) where active;

create table triggers (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null,
  last_version integer not null default 0,
  created_at timestamptz not null default now(),
  unique (organization_id, name)
);

create table trigger_revisions (
  id uuid primary key default gen_random_uuid(),
  trigger_id uuid not null references triggers (id),
  version integer not null check (version > 0),
  yaml text not null,
  model jsonb not null,
  active boolean not null default false,
  api_key_id uuid not null references api_keys (id),
  created_at timestamptz not null default now(),
  unique (trigger_id, version)
);
create unique index trigger_revisions_one_active on trigger_revisions (trigger_id) where active;

create table enrollment_tokens (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  api_key_id uuid not null references api_keys (id),
  digest bytea not null unique,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  created_at timestamptz not null default now()
);
create index enrollment_tokens_api_key on enrollment_tokens (api_key_id) where consumed_at is null;

create table daemons (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null check (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  public_key jsonb not null,
  runtimes jsonb not null,
  enrollment_token_id uuid not null unique references enrollment_tokens (id),
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
create unique index daemons_one_active_name on daemons (organization_id, name) where retired_at is null;
