-- Runs people can follow: the agents' output, cancellation, and daemons that say they stop.

-- What an agent printed, as its daemon sent it: chunks numbered from 0 per execution, so that a
-- retried request stores nothing twice. The first 5 MiB (head) and the last 5 MiB (tail) are kept;
-- the tail's oldest chunks are deleted as new ones come, leaving a gap in seq where it was cut.
create table execution_output (
  execution_id uuid not null references executions (id),
  seq integer not null check (seq >= 0),
  stream text not null check (stream in ('stdout', 'stderr')),
  at timestamptz not null,
  text text not null,
  bytes integer not null check (bytes >= 0),
  primary key (execution_id, seq)
);

alter table executions
  -- Bytes kept in the head, the last seq of the head once it is full, bytes in the tail, and
  -- bytes deleted from the tail.
  add column output_head_bytes bigint not null default 0,
  add column output_head_end integer,
  add column output_tail_bytes bigint not null default 0,
  add column output_cut_bytes bigint not null default 0,
  -- A cancellation asked for, and when it was last offered to the daemon (again after 10 s).
  add column cancel_requested_at timestamptz,
  add column cancel_sent_at timestamptz;
create index executions_cancelling on executions (daemon_id) where cancel_requested_at is not null and status in ('spawning', 'running');

alter table trigger_runs
  add column cancel_requested_at timestamptz,
  add column cancelled_by_api_key_id uuid references api_keys (id);

-- When a daemon said it stopped (its last_seen_at is cleared then: offline at once).
alter table daemons add column stopped_at timestamptz;

-- A reader following an execution's output, on any instance, learns of new chunks and of the
-- execution's end from one channel; triggers send it, so no path that writes either can forget.
-- NOTIFYs with the same payload in one transaction are delivered once.
create function notify_execution_output() returns trigger language plpgsql as $$
begin
  perform pg_notify('hub_execution_output', new.execution_id::text);
  return null;
end $$;
create trigger execution_output_notify after insert on execution_output
  for each row execute function notify_execution_output();

create function notify_execution_end() returns trigger language plpgsql as $$
begin
  perform pg_notify('hub_execution_output', new.id::text);
  return null;
end $$;
create trigger execution_end_notify after update of status on executions
  for each row when (old.status is distinct from new.status and new.status not in ('spawning', 'running'))
  execute function notify_execution_end();

alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked', 'run.cancelled'));
