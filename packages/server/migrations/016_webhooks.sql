-- Outbound webhooks (issue 28; DECISIONS.md, Outbound webhooks). Endpoints an organization
-- registers; events written by triggers in the transaction of the change that causes them (an
-- outbox: a rolled-back change leaves none, a committed one never misses); one delivery per
-- endpoint and event, retried until a 2xx or the schedule ends; each attempt kept for the log.

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  url text not null,
  -- Some of the event types, or '*'.
  events text[] not null check (cardinality(events) > 0),
  description text,
  -- `whsec_` and base64 of 32 random bytes: the hub signs with it, so it is kept as given.
  secret text not null,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  -- The first failed attempt since the last delivered one (or since creation): 5 days of
  -- failures and nothing else disable the endpoint.
  failing_since timestamptz,
  disabled_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_endpoints_organization on webhook_endpoints (organization_id, created_at, id);

create table webhook_events (
  -- The `webhook-id` of every delivery of the event, retries and resends included.
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  type text not null
    check (type in ('run.started', 'run.completed', 'configuration.installed', 'trigger.installed', 'daemon.offline')),
  data jsonb not null,
  created_at timestamptz not null default clock_timestamp()
);
create index webhook_events_created on webhook_events (created_at, id);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_id uuid not null references webhook_events (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  -- When it is due; while an instance sends it, the end of that instance's lease.
  next_attempt_at timestamptz not null default now(),
  created_at timestamptz not null default clock_timestamp(),
  finished_at timestamptz
);
-- What is due, per endpoint: the deliverers pick up to an endpoint's free slots from each enabled
-- endpoint, so that no endpoint's backlog (one that hangs, one disabled) stands before another's.
create index webhook_deliveries_due on webhook_deliveries (endpoint_id, next_attempt_at, id) where status = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_event on webhook_deliveries (event_id);

create table webhook_attempts (
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null check (attempt > 0),
  started_at timestamptz not null,
  duration_ms integer not null,
  -- The receiver's status code; null when none came (refused, timed out, connection failed).
  response_status integer,
  -- The first bytes of the receiver's answer, or what went wrong.
  response_excerpt text,
  error text,
  primary key (delivery_id, attempt)
);

-- A daemon's offline is a lack of heartbeats, not a change: the webhook workers notice it and
-- note, here, when they told of it (a daemon that comes back and goes again is told of again).
-- The daemons offline before this migration count as told.
alter table daemons add column offline_told_at timestamptz default now();
alter table daemons alter column offline_told_at drop default;

-- Times as the API gives them: ISO 8601 UTC with milliseconds (JavaScript's toISOString).
create function hub_iso(t timestamptz) returns text language sql stable as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- A run as GET /api/v1/runs/{id} gives it (runs/run-view.ts: a test holds the two equal).
create function hub_run_json(run_id uuid) returns jsonb language sql stable as $$
  select jsonb_build_object(
      'triggerRunId', r.id, 'projectSlug', p.slug, 'trigger', r.trigger_name, 'actor', r.actor,
      'deliveryKey', r.delivery_key, 'status', r.status, 'source', r.source, 'inputs', r.inputs,
      'createdAt', hub_iso(r.created_at), 'finishedAt', hub_iso(r.finished_at),
      'cancelRequestedAt', hub_iso(r.cancel_requested_at),
      'executions', coalesce((
        select jsonb_agg(jsonb_build_object(
          'executionId', e.id, 'stepId', e.step_id, 'daemonId', e.daemon_id, 'daemon', d.name, 'status', e.status,
          'exitCode', e.exit_code, 'message', e.message, 'createdAt', hub_iso(e.created_at),
          'startedAt', hub_iso(e.started_at), 'finishedAt', hub_iso(e.finished_at)) order by e.step_index)
        from executions e join daemons d on d.id = e.daemon_id where e.trigger_run_id = r.id), '[]'::jsonb))
    || case when r.event is null then '{}'::jsonb else jsonb_build_object('event', r.event) end
    || case when r.message is null then '{}'::jsonb else jsonb_build_object('message', r.message) end
  from trigger_runs r join projects p on p.id = r.project_id
  where r.id = run_id
$$;

-- Whether an enabled endpoint of the organization wants events of the type: the triggers ask
-- first, and build no payload (a run's costs a few reads) for an organization that has none.
create function webhook_wanted(organization uuid, event_type text) returns boolean language sql stable as $$
  select exists (select 1 from webhook_endpoints
    where organization_id = organization and status = 'enabled' and events && array[event_type, '*'])
$$;

-- The outbox: an event of the organization, with a delivery for each of its enabled endpoints that
-- wants it. Deliverers wake on NOTIFY hub_webhooks.
create function webhook_emit(organization uuid, event_type text, payload jsonb) returns void language plpgsql as $$
declare
  event uuid;
begin
  insert into webhook_events (organization_id, type, data) values (organization, event_type, payload)
    returning id into event;
  insert into webhook_deliveries (endpoint_id, event_id)
    select id, event from webhook_endpoints
    where organization_id = organization and status = 'enabled' and events && array[event_type, '*'];
  perform pg_notify('hub_webhooks', '');
end $$;

-- Runs: at commit (deferred), so that the run is seen with the executions its transaction made.
create function webhook_run_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' and new.status = 'running' then
    if webhook_wanted(new.organization_id, 'run.started') then
      perform webhook_emit(new.organization_id, 'run.started', hub_run_json(new.id));
    end if;
  elsif new.status <> 'running' and (tg_op = 'INSERT' or old.status = 'running') then
    if webhook_wanted(new.organization_id, 'run.completed') then
      perform webhook_emit(new.organization_id, 'run.completed', hub_run_json(new.id));
    end if;
  end if;
  return null;
end $$;
create constraint trigger trigger_runs_webhook_started after insert on trigger_runs
  deferrable initially deferred for each row execute function webhook_run_changed();
create constraint trigger trigger_runs_webhook_completed after update of status on trigger_runs
  deferrable initially deferred for each row when (old.status = 'running' and new.status <> 'running')
  execute function webhook_run_changed();

-- Installs: the revision as the install answered it.
create function webhook_configuration_installed() returns trigger language plpgsql as $$
begin
  perform webhook_emit(p.organization_id, 'configuration.installed', jsonb_build_object(
      'projectSlug', p.slug, 'versionId', new.id, 'version', new.version, 'active', new.active))
    from projects p where p.id = new.project_id and webhook_wanted(p.organization_id, 'configuration.installed');
  return null;
end $$;
create trigger configuration_revisions_webhook after insert on configuration_revisions
  for each row execute function webhook_configuration_installed();

create function webhook_trigger_installed() returns trigger language plpgsql as $$
begin
  perform webhook_emit(t.organization_id, 'trigger.installed', jsonb_build_object(
      'triggerId', t.id, 'name', t.name, 'revisionId', new.id, 'version', new.version, 'active', new.active))
    from triggers t where t.id = new.trigger_id and webhook_wanted(t.organization_id, 'trigger.installed');
  return null;
end $$;
create trigger trigger_revisions_webhook after insert on trigger_revisions
  for each row execute function webhook_trigger_installed();

alter table audit_events drop constraint audit_events_kind_check;
alter table audit_events add constraint audit_events_kind_check check (kind in (
  'api_key.created', 'api_key.revoked', 'configuration.installed', 'trigger.installed', 'run.dispatched',
  'enrollment_token.issued', 'daemon.enrolled', 'daemon.retired',
  'member.added', 'member.removed', 'member.left', 'member.role_changed', 'account.signed_in',
  'cli_credential.created', 'cli_credential.revoked', 'run.cancelled',
  'invitation.created', 'invitation.accepted', 'invitation.revoked', 'account.password_changed',
  'project.created', 'project.deactivated', 'project.reactivated',
  'project.repository_changed', 'github_installation.linked', 'github_installation.unlinked',
  'webhook_endpoint.created', 'webhook_endpoint.deleted', 'webhook_endpoint.enabled'));

-- Daemons gone offline since they were last told of: a daemon seen (or stopped) after its last
-- telling, and silent for the offline window now (or stopped). Every instance may call it: the
-- row lock of the UPDATE lets one tell each. Returns how many it told of.
create function webhook_tell_offline(offline_after_ms bigint) returns integer language plpgsql as $$
declare
  gone record;
  told integer := 0;
begin
  for gone in
    update daemons d set offline_told_at = now()
    where d.retired_at is null and coalesce(d.last_seen_at, d.stopped_at) is not null
      and (d.last_seen_at is null or d.last_seen_at <= now() - offline_after_ms * interval '1 millisecond')
      and (d.offline_told_at is null or d.offline_told_at < coalesce(d.last_seen_at, d.stopped_at))
    returning d.id, d.organization_id, d.name, coalesce(d.last_seen_at, d.stopped_at) as last_seen
  loop
    if webhook_wanted(gone.organization_id, 'daemon.offline') then
      perform webhook_emit(gone.organization_id, 'daemon.offline',
        jsonb_build_object('daemonId', gone.id, 'name', gone.name, 'lastSeenAt', hub_iso(gone.last_seen)));
      told := told + 1;
    end if;
  end loop;
  return told;
end $$;
