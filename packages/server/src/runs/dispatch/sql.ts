import type { CompiledTrigger } from '@hub/compiler';
import type { Fragment } from 'postgres';
import type { Db } from '../../db/connect.js';
import { keyCheck, type CliCredentialExpiry } from '../../auth/api-key.js';
import { countCompleted, countStarted } from '../../metrics/index.js';
import { deliveryColumn, deliveryOf, lookupColumn, lookupOf, type DeliveryRow } from './lookup.js';
import type { Delivery, FoundTrigger, NewRun, PlannedStep, TriggerHint } from './model.js';

/**
 * A run's start, as the CTEs `run`, `execution` and `audit` of a dispatch's one statement: the run,
 * its first execution and the audit event, written when the statement's CTE `ready` has its one
 * row (project_id, project_slug, daemon_id, and api_key_id or account_id, whoever dispatches: every
 * precondition held), and nothing
 * otherwise. A delivery key already used inserts nothing either (`run` is then empty).
 */
function runInserts(
  sql: Db,
  run: NewRun,
  from: {
    trigger: CompiledTrigger;
    triggerId: string;
    configurationRevisionId: string | null;
    triggerRevisionId: string | null;
  },
): Fragment {
  const first = run.plan[0] as PlannedStep;
  const github = run.source === 'github';
  return sql`run as (
      insert into trigger_runs (id, organization_id, project_id, delivery_key, request_digest, trigger_name,
        configuration_revision_id, trigger_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, api_key_id,
        dispatched_by_account, source, event)
      select ${run.triggerRunId}, ${run.organizationId}, ready.project_id, ${run.deliveryKey}, ${run.requestDigest}, ${from.trigger.name},
        ${from.configurationRevisionId}::uuid, ${from.triggerRevisionId}::uuid,
        ${from.triggerId}, ${run.actor}, ${sql.json(run.inputs)}, ${sql.json(run.plan as never)}, ${from.trigger.maxRuntimeMs}, ready.api_key_id,
        ready.account_id, ${run.source ?? 'manual'}, ${run.event === undefined ? null : sql.json(run.event)}
      from ready
      on conflict (organization_id, delivery_key) do nothing
      returning receipt_id
    ), execution as (
      insert into executions (id, trigger_run_id, step_index, step_id, daemon_id, assignment, max_runtime_ms)
      select ${run.executionId}, ${run.triggerRunId}, 0, ${first.id}, ready.daemon_id, ${sql.json(run.assignment as never)}, ${first.maxRuntimeMs}
      from ready, run
    ), audit as (
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      select ${run.organizationId}, 'run.dispatched',
        case when ready.api_key_id is not null then 'key' when ready.account_id is not null then 'account' else 'github' end,
        ready.api_key_id, ready.account_id,
        jsonb_build_object('runId', ${run.triggerRunId}::uuid, 'trigger', ${from.trigger.name}::text,
          'projectSlug', ready.project_slug, 'daemon', ${first.daemon}::text)
          || ${github ? sql`jsonb_build_object('actor', ${run.actor}::text, 'deliveryId', ${run.event?.deliveryId ?? null}::text)` : sql`'{}'::jsonb`}
      from ready, run
      -- A schedule's run is no one's action: the install that made it is audited. GitHub's is the
      -- action of the GitHub login that mentioned the app or added the label.
      where ready.api_key_id is not null or ready.account_id is not null or ${github}
    )`;
}

/** Who dispatches: a key (the API, the CLI), a person (the dashboard), or no one (a schedule's tick). */
export type Caller = { kind: 'key'; id: string } | { kind: 'account'; id: string } | { kind: 'none' };

/**
 * The caller read again in the dispatch's statement, locked FOR KEY SHARE until it commits: a key
 * unrevoked, or a person still a member of the organization. No row: nothing starts.
 */
function callerCheck(sql: Db, organizationId: string, caller: Caller): Fragment {
  if (caller.kind === 'none') return sql`select null::uuid as api_key_id, null::uuid as account_id`;
  return caller.kind === 'key'
    ? sql`select id as api_key_id, null::uuid as account_id from api_keys where id = ${caller.id} and revoked_at is null for key share`
    : sql`select null::uuid as api_key_id, account_id from organization_members
        where organization_id = ${organizationId} and account_id = ${caller.id} for key share`;
}

/** Runs and the delivery keys that make dispatch idempotent: a dispatch's reads and its write. */
export class RunRepository {
  constructor(
    private readonly sql: Db,
    private readonly timing: { offlineAfterMs: number },
  ) {}

  /** The dispatch that used this delivery key in the organization, with its request's digest. */
  async delivery(organizationId: string, deliveryKey: string): Promise<Delivery | undefined> {
    const [row] = await this.sql<
      { delivery: DeliveryRow | null }[]
    >`select ${deliveryColumn(this.sql, this.sql`${organizationId}::uuid`, deliveryKey)} as delivery`;
    return row?.delivery === null || row?.delivery === undefined ? undefined : deliveryOf(row.delivery);
  }

  /** Everything a dispatch reads, as one column for the key check's statement (runs/dispatch/lookup.ts). */
  static readonly lookupColumn = lookupColumn;

  /** `lookupColumn`'s read on its own, for a dispatch whose key was checked before its body was read. */
  async lookup(
    organizationId: string,
    request: { projectSlug: string; trigger: string; deliveryKey: string },
  ): Promise<unknown> {
    const [row] = await this.sql<{ found: unknown }[]>`
      select ${lookupColumn(this.sql, request)} as found from (select ${organizationId}::uuid as organization_id) as key`;
    return row?.found;
  }

  /** What `lookupColumn` read. */
  static readonly lookupOf = lookupOf;

  /**
   * Starts a run and its first execution in one statement, when the first step's daemon is
   * online (the caller then wakes that daemon's long-polls: runs/dispatch/notices.ts). The delivery key is
   * unique per organization: of concurrent dispatches with one key, on any instance, one inserts
   * and the others wait for it and insert nothing (`taken`). The API key is read again in the
   * same statement, unrevoked and locked FOR KEY SHARE until it commits (as an install's is, see
   * configurations/sql.ts): a key revoked before then starts nothing (`key_revoked`).
   */
  async dispatch(
    run: NewRun & { found: FoundTrigger; triggerId: string; caller: Caller },
  ): Promise<
    | { outcome: 'dispatched'; daemonId: string; receiptId: string }
    | { outcome: 'key_revoked' | 'not_enrolled' | 'offline' | 'taken' }
  > {
    const { found } = run;
    const first = run.plan[0] as PlannedStep;
    const [row] = await this.sql<
      { keyValid: boolean; daemonId: string | null; online: boolean | null; receiptId: string | null }[]
    >`
      with key as (${callerCheck(this.sql, run.organizationId, run.caller)}), daemon as (
        select id, coalesce(last_seen_at > now() - ${this.timing.offlineAfterMs} * interval '1 millisecond', false) as online
        from daemons where organization_id = ${run.organizationId} and name = ${first.daemon} and retired_at is null
      ), ready as (
        select ${found.projectId}::uuid as project_id, (select slug from projects where id = ${found.projectId}) as project_slug,
          daemon.id as daemon_id, key.api_key_id, key.account_id
        from daemon, key where daemon.online
      ), ${runInserts(this.sql, run, {
        trigger: found.trigger,
        triggerId: run.triggerId,
        configurationRevisionId: found.source === 'configuration' ? found.revisionId : null,
        triggerRevisionId: found.source === 'trigger' ? found.revisionId : null,
      })}
      select exists (select from key) as "keyValid", (select id from daemon) as "daemonId", (select online from daemon) as online,
        (select receipt_id from run) as "receiptId"`;
    const result = row as {
      keyValid: boolean;
      daemonId: string | null;
      online: boolean | null;
      receiptId: string | null;
    };
    if (!result.keyValid) return { outcome: 'key_revoked' };
    if (result.daemonId === null) return { outcome: 'not_enrolled' };
    if (result.online !== true) return { outcome: 'offline' };
    if (result.receiptId === null) return { outcome: 'taken' };
    countStarted(run.source ?? 'manual');
    return { outcome: 'dispatched', daemonId: result.daemonId, receiptId: result.receiptId };
  }

  /**
   * A run that could not start, recorded as failed at once with why (`message`): a run no one
   * dispatched, whose failure no one would otherwise see. False: the delivery key was used before.
   */
  async recordFailed(
    run: Omit<NewRun, 'executionId' | 'assignment'> & {
      projectId: string;
      revisionId: string;
      triggerId: string;
      trigger: CompiledTrigger;
      message: string;
    },
  ): Promise<boolean> {
    const rows = await this.sql`
      insert into trigger_runs (id, organization_id, project_id, delivery_key, request_digest, trigger_name,
        configuration_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, status, finished_at, source, event, message)
      values (${run.triggerRunId}, ${run.organizationId}, ${run.projectId}, ${run.deliveryKey}, ${run.requestDigest},
        ${run.trigger.name}, ${run.revisionId}, ${run.triggerId}, ${run.actor}, ${this.sql.json(run.inputs)},
        ${this.sql.json(run.plan as never)}, ${run.trigger.maxRuntimeMs}, 'failed', now(), ${run.source ?? 'manual'},
        ${run.event === undefined ? null : this.sql.json(run.event)}, ${run.message})
      on conflict (organization_id, delivery_key) do nothing
      returning id`;
    if (rows.length > 0) countCompleted('failed');
    return rows.length > 0;
  }

  /**
   * `dispatch` and the key check in one statement, from hints (runs/dispatch/hints.ts), with every
   * precondition read again: the key by id and digest, unrevoked, with runs:dispatch, locked FOR
   * KEY SHARE until commit (and its lastUsedAt moved on: the key check's own CTEs, auth/api-key.ts's
   * `keyCheck` with `expected`); the project active
   * under its slug, and the hint's revisions still the active ones (a revision never changes, so
   * the trigger and the plan made from it are exact); the first step's daemon online; the delivery
   * key unused. It starts the run only when all hold, and otherwise nothing: `started` false,
   * with what was found not to hold, for the caller to take the exact path.
   *
   * Every table is read by a unique index whatever the statistics say: the key's organization is
   * compared with IS NOT DISTINCT FROM, which no index serves, so that statistics taken while
   * api_keys was all but empty cannot send the look-up through the organization's keys
   * (api_keys_organization) instead of the primary key.
   */
  async dispatchHinted(
    run: NewRun & {
      keyId: string;
      keyDigest: Buffer;
      projectSlug: string;
      hint: TriggerHint;
      cliCredentials: CliCredentialExpiry;
    },
  ): Promise<
    { started: true; daemonId: string; receiptId: string } | { started: false; keyValid: boolean; current: boolean }
  > {
    const { hint, organizationId } = run;
    const first = run.plan[0] as PlannedStep;
    const [row] = await this.sql<
      { keyValid: boolean; current: boolean; daemonId: string | null; receiptId: string | null }[]
    >`
      with ${keyCheck(this.sql, {
        digest: run.keyDigest,
        scope: 'runs:dispatch',
        expiry: run.cliCredentials,
        expected: { keyId: run.keyId, organizationId },
      })}, current as (
        select p.id, p.slug from projects p
        where p.id = ${hint.projectId} and p.organization_id = ${organizationId} and p.slug = ${run.projectSlug} and p.active
          and (select r.id from configuration_revisions r where r.project_id = p.id and r.active) is not distinct from ${hint.configurationRevisionId}::uuid
          and (${hint.triggerRevisionId}::uuid is null or exists (select from trigger_revisions t where t.id = ${hint.triggerRevisionId}::uuid and t.active))
      ), daemon as (
        select id from daemons
        where organization_id = ${organizationId} and name = ${first.daemon} and retired_at is null
          and last_seen_at > now() - ${this.timing.offlineAfterMs} * interval '1 millisecond'
      ), ready as (
        select current.id as project_id, current.slug as project_slug, daemon.id as daemon_id, key.id as api_key_id,
          null::uuid as account_id
        from key, current, daemon
      ), ${runInserts(this.sql, run, {
        trigger: hint.trigger,
        triggerId: hint.triggerId,
        configurationRevisionId: hint.triggerRevisionId === null ? hint.configurationRevisionId : null,
        triggerRevisionId: hint.triggerRevisionId,
      })}
      select exists (select from key) as "keyValid", exists (select from current) as current, (select id from daemon) as "daemonId",
        (select receipt_id from run) as "receiptId", (select count(*) from touched) as touched`;
    const result = row as { keyValid: boolean; current: boolean; daemonId: string | null; receiptId: string | null };
    if (result.receiptId !== null && result.daemonId !== null)
      return { started: true, daemonId: result.daemonId, receiptId: result.receiptId };
    return { started: false, keyValid: result.keyValid, current: result.current };
  }

  /**
   * The names a dispatch could have meant, for the "did you mean" of trigger_not_found (read only
   * then): the manual.run triggers of the project's active configuration, then the organization's.
   * At most 200, as many as `suggest` compares.
   */
  async manualTriggerNames(organizationId: string, projectSlug: string): Promise<string[]> {
    const rows = await this.sql<{ name: string }[]>`
      select name from (
        select t ->> 'name' as name, t -> 'events' as events, 0 as source
        from projects p
        join configuration_revisions r on r.project_id = p.id and r.active
        cross join jsonb_array_elements(r.model -> 'triggers') as t
        where p.organization_id = ${organizationId} and p.slug = ${projectSlug} and p.active
        union all
        select r.model -> 'triggers' -> 0 ->> 'name', r.model -> 'triggers' -> 0 -> 'events', 1
        from triggers o join trigger_revisions r on r.trigger_id = o.id and r.active
        where o.organization_id = ${organizationId}
      ) as named
      where events @> '[{"kind":"manual.run"}]'::jsonb
      order by source, name
      limit 200`;
    return rows.map((row) => row.name);
  }

  /** A's triggerId for a configuration installed before triggers got theirs at install. */
  async configuredTrigger(projectId: string, name: string): Promise<string> {
    const [row] = await this.sql<{ id: string }[]>`
      with made as (
        insert into configured_triggers (project_id, name) values (${projectId}, ${name}) on conflict (project_id, name) do nothing returning id
      )
      select id from made union all select id from configured_triggers where project_id = ${projectId} and name = ${name}`;
    return (row as { id: string }).id;
  }
}
