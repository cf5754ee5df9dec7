-- Dispatch: daemon presence and replay protection, runs, their executions, and the delivery keys
-- that make dispatch idempotent.

-- Presence: a heartbeat or a long-poll moves last_seen_at; online is "within the last 30 s".
alter table daemons add column last_seen_at timestamptz;

-- Nonces of signed daemon requests, kept past the ±60 s window (then swept): a nonce seen by any
-- instance is refused on every instance.
create table daemon_nonces (
  daemon_id uuid not null references daemons (id),
  nonce text not null,
  seen_at timestamptz not null default now(),
  primary key (daemon_id, nonce)
);
create index daemon_nonces_seen_at on daemon_nonces (seen_at);

-- A's triggerId: stable per (project, trigger name) across revisions.
create table configured_triggers (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id),
  name text not null,
  unique (project_id, name)
);

-- One manual run. The delivery key is unique per organization: a duplicate finds this row and
-- answers with its identifiers (request_digest tells a replay from a reused key).
create table trigger_runs (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  project_id uuid not null references projects (id),
  delivery_key text not null check (length(delivery_key) between 1 and 255),
  request_digest bytea not null,
  -- B's providerEventReceiptId: the stored receipt of this delivery.
  receipt_id uuid not null default gen_random_uuid() unique,
  trigger_name text not null,
  -- Where the trigger was found: the project's configuration, or an organization trigger.
  configuration_revision_id uuid references configuration_revisions (id),
  trigger_revision_id uuid references trigger_revisions (id),
  -- A's triggerId: configured_triggers.id, or triggers.id for an organization trigger.
  trigger_id uuid not null,
  actor text not null,
  inputs jsonb not null,
  -- The steps to run, prompts rendered, each with its daemon, cwd and limits.
  plan jsonb not null,
  max_runtime_ms bigint not null,
  status text not null default 'running'
    check (status in ('running', 'succeeded', 'failed', 'cancelled', 'timed_out')),
  api_key_id uuid not null references api_keys (id),
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  unique (organization_id, delivery_key),
  check ((configuration_revision_id is null) <> (trigger_revision_id is null))
);
create index trigger_runs_running on trigger_runs (created_at) where status = 'running';

-- One step of a run on one daemon.
create table executions (
  id uuid primary key default gen_random_uuid(),
  trigger_run_id uuid not null references trigger_runs (id),
  step_index integer not null check (step_index >= 0),
  step_id text not null,
  daemon_id uuid not null references daemons (id),
  status text not null default 'spawning'
    check (status in ('spawning', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost')),
  -- What the daemon is sent (section "Daemons" of DECISIONS.md).
  assignment jsonb not null,
  max_runtime_ms bigint not null,
  offered_at timestamptz,
  offers integer not null default 0,
  started_at timestamptz,
  finished_at timestamptz,
  exit_code integer,
  message text,
  created_at timestamptz not null default now(),
  unique (trigger_run_id, step_index)
);
create index executions_waiting on executions (daemon_id, created_at) where status = 'spawning';
create index executions_in_flight on executions (daemon_id) where status in ('spawning', 'running');
