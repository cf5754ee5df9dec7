-- Schedules (issue 26): runs that no person dispatches. A run has a source and, for a run that
-- no request started, the event that did; the active configurations' schedule entries wait for
-- their next tick in a table of their own, found by an index on that tick.

-- A manual run is dispatched by a key or by a person (exactly one); any other run by neither.
alter table trigger_runs
  add column source text not null default 'manual' check (source in ('manual', 'schedule', 'github')),
  add column event jsonb,
  -- Why a run ended without an execution (a schedule's tick whose daemon was offline).
  add column message text,
  drop constraint trigger_runs_dispatched_by,
  add constraint trigger_runs_dispatched_by check (case when source = 'manual'
    then (api_key_id is null) <> (dispatched_by_account is null)
    else api_key_id is null and dispatched_by_account is null end);

-- The runs list's filter by source, newest first, per organization.
create index trigger_runs_source on trigger_runs (organization_id, source, created_at desc, id desc) where source <> 'manual';

-- One row per schedule entry of a project's active configuration revision: written when the
-- revision is installed (the project's rows of the revision before are deleted in the same
-- transaction), fired by every hub instance's scheduler (schedules/scheduler.ts).
create table schedule_entries (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  project_id uuid not null references projects (id),
  configuration_revision_id uuid not null references configuration_revisions (id) on delete cascade,
  trigger_name text not null,
  entry_index integer not null check (entry_index >= 0),
  cron text not null,
  timezone text not null,
  input text not null,
  -- The next tick to fire; null until a scheduler has computed the first (just after install);
  -- 'infinity' for an entry whose expression never matches again.
  next_fire_at timestamptz,
  unique (configuration_revision_id, trigger_name, entry_index)
);
create index schedule_entries_due on schedule_entries (next_fire_at) where next_fire_at is not null;
create index schedule_entries_new on schedule_entries (id) where next_fire_at is null;
create index schedule_entries_project on schedule_entries (project_id);
