import type { CompiledEnvironment, CompiledTrigger } from '@hub/compiler';
import type { Fragment, Sql, TransactionSql } from 'postgres';
import { ASSIGNMENT_CHANNEL } from '../dispatch/wakeups.js';

/** The daemon protocol's clocks (DECISIONS.md, Daemons): 30 s each unless tuned. */
export interface DispatchTiming {
  /** A daemon is online while seen (heartbeat, long-poll, any signed request) this recently. */
  offlineAfterMs: number;
  /** An assignment offered but not marked running this long ago is offered again. */
  redeliverAfterMs: number;
  /** How long past max_runtime the hub waits for the daemon's own report before timing out. */
  timeoutGraceMs: number;
}

export const DEFAULT_TIMING: DispatchTiming = { offlineAfterMs: 30_000, redeliverAfterMs: 30_000, timeoutGraceMs: 30_000 };

/** One step as the run will execute it: its daemon by name, the prompt rendered. */
export interface PlannedStep {
  id: string;
  daemon: string;
  cwd: string;
  agent: { provider: string; mode?: string; model?: string };
  prompt: string;
  maxRuntimeMs: number;
  idleTimeoutMs: number | null;
}

/** What a daemon receives for one execution (DECISIONS.md, Daemons). */
export interface Assignment {
  executionId: string;
  triggerRunId: string;
  stepId: string;
  cwd: string;
  agent: { provider: string; mode?: string; model?: string };
  prompt: string;
  inputs: Record<string, string>;
  actor: string;
  maxRuntimeMs: number;
  idleTimeoutMs: number | null;
}

/** The identifiers a dispatch answers with, in either shape; a replay answers the same. */
export interface Dispatched {
  deliveryKey: string;
  triggerRunId: string;
  receiptId: string;
  triggerId: string;
  triggerName: string;
  executionId: string;
  daemonId: string;
  agentId: string;
}

/** Where a dispatch found its trigger. */
export type FoundTrigger = {
  projectId: string;
  trigger: CompiledTrigger;
  environments: CompiledEnvironment[];
} & ({ source: 'configuration'; revisionId: string; configuredTriggerId?: string } | { source: 'trigger'; revisionId: string; triggerId: string });

/** An earlier dispatch with the same delivery key: its identifiers, and its request's digest. */
export interface Delivery {
  requestDigest: Buffer;
  dispatched: Dispatched;
}

type DeliveryRow = Omit<Dispatched, never> & { requestDigest: string };

interface LookupRow {
  delivery: DeliveryRow | null;
  projectId: string | null;
  revisionId: string | null;
  trigger: CompiledTrigger | null;
  environments: CompiledEnvironment[] | null;
  configuredTriggerId: string | null;
  organizationTrigger: { triggerId: string; revisionId: string; trigger: CompiledTrigger; environments: CompiledEnvironment[] } | null;
}

/** The earlier dispatch with the key, as one JSON column (null when there is none). */
function deliveryColumn(sql: Sql, organization: Fragment, deliveryKey: string): Fragment {
  return sql`(
    select json_build_object('requestDigest', encode(r.request_digest, 'hex'), 'deliveryKey', r.delivery_key, 'triggerRunId', r.id,
      'receiptId', r.receipt_id, 'triggerId', r.trigger_id, 'triggerName', r.trigger_name,
      'executionId', e.id, 'daemonId', e.daemon_id, 'agentId', e.assignment -> 'agent' ->> 'provider')
    from trigger_runs r join executions e on e.trigger_run_id = r.id and e.step_index = 0
    where r.organization_id = ${organization} and r.delivery_key = ${deliveryKey})`;
}

function deliveryOf(row: DeliveryRow): Delivery {
  const { requestDigest, ...dispatched } = row;
  return { requestDigest: Buffer.from(requestDigest, 'hex'), dispatched };
}

export type ExecutionStatus = 'spawning' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost';
export type ReportedStatus = Exclude<ExecutionStatus, 'spawning' | 'lost'>;
const FINAL: readonly ExecutionStatus[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'lost'];

export type ReportResult = { ok: true; status: ExecutionStatus } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'finished'; status: ExecutionStatus };

/** Runs, their executions, and the delivery keys that make dispatch idempotent. */
export class RunRepository {
  constructor(
    private readonly sql: Sql,
    readonly timing: DispatchTiming = DEFAULT_TIMING,
  ) {}

  /** The dispatch that used this delivery key in the organization, with its request's digest. */
  async delivery(organizationId: string, deliveryKey: string): Promise<Delivery | undefined> {
    const [row] = await this.sql<{ delivery: DeliveryRow | null }[]>`select ${deliveryColumn(this.sql, this.sql`${organizationId}::uuid`, deliveryKey)} as delivery`;
    return row?.delivery === null || row?.delivery === undefined ? undefined : deliveryOf(row.delivery);
  }

  /**
   * Everything a dispatch reads, as one column for the key check's statement (`Prefetch`; the
   * organization is `key.organization_id`): the run an earlier dispatch with this delivery key
   * started, if any; and the trigger: in the project's active configuration first (found with a
   * JSON path query, so that a large model is not read for it), then among the organization's
   * triggers. `lookupOf` reads it.
   */
  static lookupColumn(sql: Sql, request: { projectSlug: string; trigger: string; deliveryKey: string }): Fragment {
    return sql`(
      with project as (
        select id from projects where organization_id = key.organization_id and slug = ${request.projectSlug} and active
      ), revision as (
        select r.id, r.model from configuration_revisions r join project p on p.id = r.project_id where r.active
      )
      select json_build_object(
        'delivery', ${deliveryColumn(sql, sql`key.organization_id`, request.deliveryKey)},
        'projectId', (select id from project),
        'revisionId', (select id from revision),
        'trigger', (select jsonb_path_query_first(model, '$.triggers[*] ? (@.name == $name)', jsonb_build_object('name', ${request.trigger}::text)) from revision),
        'environments', (select model -> 'environments' from revision),
        'configuredTriggerId', (select c.id from configured_triggers c join project p on p.id = c.project_id where c.name = ${request.trigger}),
        'organizationTrigger', (
          select json_build_object('triggerId', t.id, 'revisionId', r.id, 'trigger', r.model -> 'triggers' -> 0, 'environments', r.model -> 'environments')
          from triggers t join trigger_revisions r on r.trigger_id = t.id and r.active
          where t.organization_id = key.organization_id and t.name = ${request.trigger})))`;
  }

  static lookupOf(value: unknown): { earlier?: Delivery; found: FoundTrigger | 'project_not_found' | 'trigger_not_found' } {
    const result = value as LookupRow;
    const earlier = result.delivery === null ? undefined : deliveryOf(result.delivery);
    if (result.projectId === null) return { earlier, found: 'project_not_found' };
    if (result.revisionId !== null && result.trigger !== null) {
      return {
        earlier,
        found: {
          source: 'configuration',
          projectId: result.projectId,
          revisionId: result.revisionId,
          configuredTriggerId: result.configuredTriggerId ?? undefined,
          trigger: result.trigger,
          environments: result.environments ?? [],
        },
      };
    }
    if (result.organizationTrigger === null) return { earlier, found: 'trigger_not_found' };
    return { earlier, found: { source: 'trigger', projectId: result.projectId, ...result.organizationTrigger } };
  }

  /**
   * Starts a run and its first execution in one statement, when the first step's daemon is
   * online, and wakes that daemon's long-poll (NOTIFY, delivered on commit). The delivery key is
   * unique per organization: of concurrent dispatches with one key, on any instance, one inserts
   * and the others wait for it and insert nothing (`taken`).
   */
  async dispatch(run: {
    organizationId: string;
    found: FoundTrigger;
    deliveryKey: string;
    requestDigest: Buffer;
    actor: string;
    inputs: Record<string, string>;
    plan: PlannedStep[];
    apiKeyId: string;
  }): Promise<{ outcome: 'dispatched'; dispatched: Dispatched } | { outcome: 'not_enrolled' | 'offline' | 'taken' }> {
    const { found } = run;
    const triggerRunId = crypto.randomUUID();
    const executionId = crypto.randomUUID();
    const first = run.plan[0] as PlannedStep;
    const assignment = assignmentOf(first, { executionId, triggerRunId, inputs: run.inputs, actor: run.actor });
    const triggerId = found.source === 'trigger' ? found.triggerId : (found.configuredTriggerId ?? (await this.configuredTrigger(found.projectId, found.trigger.name)));
    const [row] = await this.sql<{ daemonId: string | null; online: boolean | null; receiptId: string | null }[]>`
      with daemon as (
        select id, coalesce(last_seen_at > now() - ${this.timing.offlineAfterMs} * interval '1 millisecond', false) as online
        from daemons where organization_id = ${run.organizationId} and name = ${first.daemon} and retired_at is null
      ), run as (
        insert into trigger_runs (id, organization_id, project_id, delivery_key, request_digest, trigger_name,
          configuration_revision_id, trigger_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, api_key_id)
        select ${triggerRunId}, ${run.organizationId}, ${found.projectId}, ${run.deliveryKey}, ${run.requestDigest}, ${found.trigger.name},
          ${found.source === 'configuration' ? found.revisionId : null}::uuid, ${found.source === 'trigger' ? found.revisionId : null}::uuid,
          ${triggerId}, ${run.actor}, ${this.sql.json(run.inputs)}, ${this.sql.json(run.plan as never)}, ${found.trigger.maxRuntimeMs}, ${run.apiKeyId}
        from daemon where daemon.online
        on conflict (organization_id, delivery_key) do nothing
        returning receipt_id
      ), execution as (
        insert into executions (id, trigger_run_id, step_index, step_id, daemon_id, assignment, max_runtime_ms)
        select ${executionId}, ${triggerRunId}, 0, ${first.id}, daemon.id, ${this.sql.json(assignment as never)}, ${first.maxRuntimeMs}
        from daemon, run
        returning daemon_id
      )
      select (select id from daemon) as "daemonId", (select online from daemon) as online, (select receipt_id from run) as "receiptId",
        (select pg_notify(${ASSIGNMENT_CHANNEL}, daemon_id::text) from execution) as notified`;
    const result = row as { daemonId: string | null; online: boolean | null; receiptId: string | null };
    if (result.daemonId === null) return { outcome: 'not_enrolled' };
    if (result.online !== true) return { outcome: 'offline' };
    if (result.receiptId === null) return { outcome: 'taken' };
    return {
      outcome: 'dispatched',
      dispatched: {
        deliveryKey: run.deliveryKey,
        triggerRunId,
        receiptId: result.receiptId,
        triggerId,
        triggerName: found.trigger.name,
        executionId,
        daemonId: result.daemonId,
        agentId: first.agent.provider,
      },
    };
  }

  /** A's triggerId for a configuration installed before triggers got theirs at install. */
  private async configuredTrigger(projectId: string, name: string): Promise<string> {
    const [row] = await this.sql<{ id: string }[]>`
      with made as (
        insert into configured_triggers (project_id, name) values (${projectId}, ${name}) on conflict (project_id, name) do nothing returning id
      )
      select id from made union all select id from configured_triggers where project_id = ${projectId} and name = ${name}`;
    return (row as { id: string }).id;
  }

  /**
   * The daemon's oldest assignment that is not yet offered, or was offered and not marked running
   * within the redelivery time: marked offered, and returned. Concurrent polls never get the same
   * one (SKIP LOCKED).
   */
  async claim(daemonId: string): Promise<Assignment | undefined> {
    const [row] = await this.sql<{ assignment: Assignment }[]>`
      update executions set offered_at = now(), offers = offers + 1
      where id = (
        select id from executions
        where daemon_id = ${daemonId} and status = 'spawning'
          and (offered_at is null or offered_at <= now() - ${this.timing.redeliverAfterMs} * interval '1 millisecond')
        order by created_at limit 1
        for update skip locked)
      returning assignment`;
    return row?.assignment;
  }

  /** Milliseconds until one of the daemon's offered assignments may be offered again, if any. */
  async untilRedelivery(daemonId: string): Promise<number | undefined> {
    const [row] = await this.sql<{ ms: number | null }[]>`
      select extract(epoch from (min(offered_at) + ${this.timing.redeliverAfterMs} * interval '1 millisecond' - now())) * 1000 as ms
      from executions where daemon_id = ${daemonId} and status = 'spawning' and offered_at is not null`;
    return row?.ms === null || row?.ms === undefined ? undefined : Math.max(0, Number(row.ms));
  }

  /** The daemon is present (a long-poll is waiting). */
  async touch(daemonId: string): Promise<void> {
    await this.sql`update daemons set last_seen_at = now() where id = ${daemonId}`;
  }

  async heartbeat(daemonId: string, runtimes: unknown[] | undefined): Promise<Date> {
    const [row] = await this.sql<{ now: Date }[]>`
      update daemons set last_seen_at = now(), runtimes = coalesce(${runtimes === undefined ? null : this.sql.json(runtimes as never)}::jsonb, runtimes)
      where id = ${daemonId} returning now() as now`;
    return (row as { now: Date }).now;
  }

  /**
   * A daemon's report on one of its executions. `running` acknowledges the assignment; a final
   * status ends the execution and moves the run on: the next step's execution (and a NOTIFY for
   * its daemon), or the run's own end. Repeating the current status is accepted; changing a
   * finished execution is not (`finished`), nor reporting on another daemon's (`not_found`).
   */
  async report(daemonId: string, executionId: string, status: ReportedStatus, detail: { exitCode?: number; message?: string }): Promise<ReportResult> {
    return this.sql.begin(async (tx) => {
      const [execution] = await tx<{ status: ExecutionStatus; stepIndex: number; triggerRunId: string }[]>`
        select status, step_index as "stepIndex", trigger_run_id as "triggerRunId"
        from executions where id = ${executionId} and daemon_id = ${daemonId} for update`;
      if (execution === undefined) return { ok: false, reason: 'not_found' } as const;
      if (execution.status === status) return { ok: true, status } as const;
      if (FINAL.includes(execution.status) || (status === 'running' && execution.status !== 'spawning')) {
        return { ok: false, reason: 'finished', status: execution.status } as const;
      }
      if (status === 'running') {
        await tx`update executions set status = 'running', started_at = now() where id = ${executionId}`;
        return { ok: true, status } as const;
      }
      await tx`
        update executions set status = ${status}, finished_at = now(), exit_code = ${detail.exitCode ?? null}, message = ${detail.message ?? null},
          started_at = coalesce(started_at, now())
        where id = ${executionId}`;
      await advance(tx, execution.triggerRunId, execution.stepIndex, status);
      return { ok: true, status } as const;
    });
  }

  /**
   * What no daemon will report: executions whose daemon went offline become `lost` (their run
   * `failed`); executions running past max_runtime plus the grace, and runs past their
   * trigger's max_runtime plus the grace, become `timed_out`. Old nonces are forgotten. Every
   * instance sweeps; each statement is safe to run concurrently.
   */
  async sweep(): Promise<{ lost: number; timedOut: number }> {
    const { offlineAfterMs, timeoutGraceMs } = this.timing;
    const lost = await this.sql`
      with lost as (
        update executions e set status = 'lost', finished_at = now(),
          message = 'The daemon went offline: no heartbeat or long-poll within ' || ${offlineAfterMs / 1000} || ' s.'
        from daemons d
        where d.id = e.daemon_id and e.status in ('spawning', 'running')
          and coalesce(d.last_seen_at, '-infinity') <= now() - ${offlineAfterMs} * interval '1 millisecond'
        returning e.trigger_run_id)
      update trigger_runs set status = 'failed', finished_at = now()
      where id in (select trigger_run_id from lost) and status = 'running'
      returning id`;
    const timedOut = await this.sql`
      with late as (
        update executions e set status = 'timed_out', finished_at = now(),
          message = 'The daemon did not report the end of the execution within its max_runtime.'
        where e.status = 'running' and e.started_at + (e.max_runtime_ms + ${timeoutGraceMs}) * interval '1 millisecond' <= now()
        returning e.trigger_run_id
      ), late_runs as (
        update trigger_runs r set status = 'timed_out', finished_at = now()
        where r.status = 'running' and (r.id in (select trigger_run_id from late)
          or r.created_at + (r.max_runtime_ms + ${timeoutGraceMs}) * interval '1 millisecond' <= now())
        returning r.id
      ), stopped as (
        update executions e set status = 'timed_out', finished_at = now(), message = 'The run reached its max_runtime.'
        where e.trigger_run_id in (select id from late_runs) and e.status in ('spawning', 'running')
          and e.trigger_run_id not in (select trigger_run_id from late)
        returning 1
      )
      select id from late_runs`;
    await this.sql`delete from daemon_nonces where seen_at < now() - interval '3 minutes'`;
    return { lost: lost.length, timedOut: timedOut.length };
  }

  /** A run of the organization with its executions, as GET /api/v1/runs/{id} answers it. */
  async run(organizationId: string, triggerRunId: string): Promise<Record<string, unknown> | undefined> {
    const [run] = await this.sql<Record<string, unknown>[]>`
      select r.id as "triggerRunId", p.slug as "projectSlug", r.trigger_name as "trigger", r.actor, r.delivery_key as "deliveryKey",
        r.status, r.inputs, r.created_at as "createdAt", r.finished_at as "finishedAt",
        coalesce((
          select json_agg(json_build_object(
            'executionId', e.id, 'stepId', e.step_id, 'daemonId', e.daemon_id, 'daemon', d.name, 'status', e.status,
            'exitCode', e.exit_code, 'message', e.message, 'createdAt', e.created_at, 'startedAt', e.started_at, 'finishedAt', e.finished_at)
            order by e.step_index)
          from executions e join daemons d on d.id = e.daemon_id where e.trigger_run_id = r.id), '[]'::json) as executions
      from trigger_runs r join projects p on p.id = r.project_id
      where r.organization_id = ${organizationId} and r.id = ${triggerRunId}`;
    if (run === undefined) return undefined;
    // Times as the rest of the API gives them: ISO 8601 UTC with milliseconds.
    const iso = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).toISOString());
    const executions = (run.executions as Record<string, unknown>[]).map((execution) => ({
      ...execution,
      createdAt: iso(execution.createdAt),
      startedAt: iso(execution.startedAt),
      finishedAt: iso(execution.finishedAt),
    }));
    return { ...run, createdAt: iso(run.createdAt), finishedAt: iso(run.finishedAt), executions };
  }
}

function assignmentOf(step: PlannedStep, run: { executionId: string; triggerRunId: string; inputs: Record<string, string>; actor: string }): Assignment {
  return {
    executionId: run.executionId,
    triggerRunId: run.triggerRunId,
    stepId: step.id,
    cwd: step.cwd,
    agent: step.agent,
    prompt: step.prompt,
    inputs: run.inputs,
    actor: run.actor,
    maxRuntimeMs: step.maxRuntimeMs,
    idleTimeoutMs: step.idleTimeoutMs,
  };
}

async function insertExecution(
  tx: TransactionSql,
  execution: { executionId: string; triggerRunId: string; stepIndex: number; daemonId: string; assignment: Assignment },
): Promise<void> {
  await tx`
    insert into executions (id, trigger_run_id, step_index, step_id, daemon_id, assignment, max_runtime_ms)
    values (${execution.executionId}, ${execution.triggerRunId}, ${execution.stepIndex}, ${execution.assignment.stepId},
      ${execution.daemonId}, ${tx.json(execution.assignment as never)}, ${execution.assignment.maxRuntimeMs})`;
  await tx`select pg_notify(${ASSIGNMENT_CHANNEL}, ${execution.daemonId})`;
}

/** After an execution ends: the next step, or the run's end. */
async function advance(tx: TransactionSql, triggerRunId: string, stepIndex: number, status: ReportedStatus): Promise<void> {
  const [run] = await tx<{ status: string; plan: PlannedStep[]; inputs: Record<string, string>; actor: string; organizationId: string }[]>`
    select status, plan, inputs, actor, organization_id as "organizationId" from trigger_runs where id = ${triggerRunId} for update`;
  if (run === undefined || run.status !== 'running') return;
  const end = (runStatus: string) => tx`update trigger_runs set status = ${runStatus}, finished_at = now() where id = ${triggerRunId}`;
  if (status !== 'succeeded') {
    await end(status === 'timed_out' ? 'timed_out' : status === 'cancelled' ? 'cancelled' : 'failed');
    return;
  }
  const next = run.plan[stepIndex + 1];
  if (next === undefined) {
    await end('succeeded');
    return;
  }
  const [daemon] = await tx<{ id: string }[]>`
    select id from daemons where organization_id = ${run.organizationId} and name = ${next.daemon} and retired_at is null`;
  if (daemon === undefined) {
    // Its daemon was retired since the dispatch, with no successor of the same name.
    await end('failed');
    return;
  }
  const executionId = crypto.randomUUID();
  await insertExecution(tx, {
    executionId,
    triggerRunId,
    stepIndex: stepIndex + 1,
    daemonId: daemon.id,
    assignment: assignmentOf(next, { executionId, triggerRunId, inputs: run.inputs, actor: run.actor }),
  });
}
