-- GitHub (issue 27): an installation of the hub's GitHub App belongs to one organization; a
-- project names its repository; webhook deliveries are kept before they are answered; what the
-- hub owes GitHub (reactions, replies, a run's comment and check run) waits in tables until sent.

create table github_installations (
  installation_id bigint primary key check (installation_id > 0),
  organization_id uuid not null references organizations (id),
  -- The account the app is installed on, as GitHub last named it (unknown until a hub asks).
  account_login text,
  account_type text,
  linked_at timestamptz not null default now(),
  -- The owner who linked it in the dashboard; null when the operator API did.
  linked_by_account uuid references accounts (id) on delete set null
);
create index github_installations_organization on github_installations (organization_id);

-- owner/name as GitHub spells it; unique in the hub without regard to case.
alter table projects
  add column repository text check (repository ~ '^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$');
create unique index projects_repository on projects (lower(repository)) where repository is not null;

-- Each webhook delivery, stored before the 202: a hub that dies after answering still acts on it.
-- X-GitHub-Delivery is the key, so a redelivery (or the same delivery at two instances) is one row.
create table github_deliveries (
  delivery_id text primary key check (length(delivery_id) between 1 and 200),
  event text not null check (length(event) between 1 and 100),
  payload jsonb not null,
  received_at timestamptz not null default now(),
  state text not null default 'pending' check (state in ('pending', 'done')),
  -- What came of it: started, ignored (and why), replied; for the logs and the tests.
  outcome text,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  done_at timestamptz
);
create index github_deliveries_pending on github_deliveries (next_attempt_at) where state = 'pending';
create index github_deliveries_done on github_deliveries (received_at) where state = 'done';

-- A run that GitHub started, and what the hub has told GitHub of it: one comment (created at the
-- start, edited at the end) and, on a pull request, a check run on its head commit.
create table github_runs (
  trigger_run_id uuid primary key references trigger_runs (id) on delete cascade,
  delivery_id text not null,
  installation_id bigint not null,
  repository text not null,
  number integer not null check (number > 0),
  kind text not null check (kind in ('issue', 'pull_request')),
  head_sha text,
  comment_id bigint,
  check_run_id bigint,
  started_reported_at timestamptz,
  ended_reported_at timestamptz,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- The last failure to report, and until when GitHub asked the hub to wait: the run page shows both.
  last_error text,
  delayed_until timestamptz
);
create index github_runs_unreported on github_runs (next_attempt_at) where ended_reported_at is null;

-- Messages that stand alone: the eyes reaction, and replies to a mention that starts nothing (an
-- unknown trigger, an actor not allowed). Each is sent once, retried until GitHub takes it.
create table github_messages (
  id uuid primary key default gen_random_uuid(),
  delivery_id text not null,
  -- reaction or reply: at most one of each per delivery.
  kind text not null check (kind in ('reaction', 'reply')),
  installation_id bigint not null,
  repository text not null,
  -- reaction: { "subject": "issue" | "issue_comment" | "pull_request_review_comment", "id": n }; reply: { "number": n, "body": text }
  body jsonb not null,
  trigger_run_id uuid references trigger_runs (id) on delete cascade,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  delayed_until timestamptz,
  unique (delivery_id, kind)
);
create index github_messages_unsent on github_messages (next_attempt_at) where sent_at is null;
create index github_messages_sent on github_messages (created_at) where sent_at is not null;

-- Reporters wake when a GitHub run ends or something new waits to be sent.
create function github_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('hub_github', '');
  return null;
end $$;
create trigger trigger_runs_github_ended after update of status on trigger_runs
  for each row when (new.source = 'github' and new.status <> 'running' and old.status = 'running')
  execute function github_notify();
create trigger github_runs_new after insert on github_runs for each statement execute function github_notify();
create trigger github_messages_new after insert on github_messages for each statement execute function github_notify();
