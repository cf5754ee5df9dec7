-- Sweeps whose cost does not grow with history, and retention (issue 15).

-- When a running execution's (or run's) max_runtime is up: its start plus max_runtime. The
-- timed-out sweep reads only what is past it, from partial indexes of running rows, instead of
-- computing it for everything in flight. The deadline is an index expression rather than a column:
-- nothing to set on the paths that start an execution or a run (none can forget it, an instance
-- of the previous version during an upgrade included), and the index is filled as it is made.
-- Immutable for a whole number of milliseconds: an interval without days or months does not
-- depend on the time zone.
create function hub_deadline(start timestamptz, ms bigint) returns timestamptz
  language sql immutable parallel safe
  return start + ms * interval '1 millisecond';
create index executions_deadline on executions (hub_deadline(started_at, max_runtime_ms)) where status = 'running';
-- Replaces trigger_runs_running (created_at), which only the sweep read: still one index per run.
create index trigger_runs_deadline on trigger_runs (hub_deadline(created_at, max_runtime_ms)) where status = 'running';
drop index trigger_runs_running;

-- Retention (db/retention.ts): finished runs by age, from an index that holds only finished
-- ones (a dispatch inserts nothing into it).
create index trigger_runs_finished on trigger_runs (finished_at) where finished_at is not null;
-- Deleting a revision checks that no run references it (its foreign keys): by index, not by
-- reading every run. A run's revision is its project's active one, so each dispatch adds to a
-- leaf it shares with the project's other runs.
create index trigger_runs_configuration_revision on trigger_runs (configuration_revision_id) where configuration_revision_id is not null;
create index trigger_runs_trigger_revision on trigger_runs (trigger_revision_id) where trigger_revision_id is not null;
-- Inactive revisions by age: an install adds its predecessor here.
create index configuration_revisions_inactive on configuration_revisions (created_at, id) where not active;
create index trigger_revisions_inactive on trigger_revisions (created_at, id) where not active;
