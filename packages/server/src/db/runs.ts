import type { CompiledEnvironment, CompiledTrigger } from '@hub/compiler';
import type { Sql, TransactionSql } from 'postgres';
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
} & ({ source: 'configuration'; revisionId: string } | { source: 'trigger'; revisionId: string; triggerId: string });

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
  async delivery(organizationId: string, deliveryKey: string): Promise<{ requestDigest: Buffer; dispatched: Dispatched } | undefined> {
    const [row] = await this.sql<(Dispatched & { requestDigest: Buffer })[]>`
      select r.request_digest as "requestDigest", r.delivery_key as "deliveryKey", r.id as "triggerRunId",
        r.receipt_id as "receiptId", r.trigger_id as "triggerId", r.trigger_name as "triggerName",
        e.id as "executionId", e.daemon_id as "daemonId", e.assignment -> 'agent' ->> 'provider' as "agentId"
      from trigger_runs r join executions e on e.trigger_run_id = r.id and e.step_index = 0
      where r.organization_id = ${organizationId} and r.delivery_key = ${deliveryKey}`;
    if (row === undefined) return undefined;
    const { requestDigest, ...dispatched } = row;
    return { requestDigest, dispatched };
  }

  /**
   * The trigger a dispatch names: in the project's active configuration first, then among the
   * organization's triggers. Only the trigger and the environments are read out of the model.
   */
  async findTrigger(organizationId: string, projectSlug: string, name: string): Promise<FoundTrigger | 'project_not_found' | 'trigger_not_found'> {
    const [project] = await this.sql<{ projectId: string; revisionId: string | null; trigger: CompiledTrigger | null; environments: CompiledEnvironment[] | null }[]>`
      select p.id as "projectId", r.id as "revisionId",
        jsonb_path_query_first(r.model, '$.triggers[*] ? (@.name == $name)', jsonb_build_object('name', ${name}::text)) as trigger,
        r.model -> 'environments' as environments
      from projects p left join configuration_revisions r on r.project_id = p.id and r.active
      where p.organization_id = ${organizationId} and p.slug = ${projectSlug} and p.active`;
    if (project === undefined) return 'project_not_found';
    if (project.revisionId !== null && project.trigger !== null) {
      return { source: 'configuration', projectId: project.projectId, revisionId: project.revisionId, trigger: project.trigger, environments: project.environments ?? [] };
    }
    const [organizationTrigger] = await this.sql<{ triggerId: string; revisionId: string; trigger: CompiledTrigger; environments: CompiledEnvironment[] }[]>`
      select t.id as "triggerId", r.id as "revisionId", r.model -> 'triggers' -> 0 as trigger, r.model -> 'environments' as environments
      from triggers t join trigger_revisions r on r.trigger_id = t.id and r.active
      where t.organization_id = ${organizationId} and t.name = ${name}`;
    if (organizationTrigger === undefined) return 'trigger_not_found';
    return { source: 'trigger', projectId: project.projectId, ...organizationTrigger };
  }

  /** The organization's active daemon of that name, and whether it is online. */
  async daemon(organizationId: string, name: string): Promise<{ id: string; online: boolean } | undefined> {
    const [row] = await this.sql<{ id: string; online: boolean }[]>`
      select id, coalesce(last_seen_at > now() - ${this.timing.offlineAfterMs} * interval '1 millisecond', false) as online
      from daemons where organization_id = ${organizationId} and name = ${name} and retired_at is null`;
    return row;
  }

  /**
   * Starts a run and its first execution, and wakes the daemon's long-poll (NOTIFY, on commit).
   * The delivery key is unique per organization: of concurrent dispatches with one key, on any
   * instance, one inserts and the others wait for it and find nothing inserted (`undefined`).
   */
  async dispatch(run: {
    organizationId: string;
    found: FoundTrigger;
    deliveryKey: string;
    requestDigest: Buffer;
    actor: string;
    inputs: Record<string, string>;
    plan: PlannedStep[];
    daemonId: string;
    apiKeyId: string;
  }): Promise<Dispatched | undefined> {
    const { found } = run;
    const triggerRunId = crypto.randomUUID();
    const executionId = crypto.randomUUID();
    const first = run.plan[0] as PlannedStep;
    const assignment = assignmentOf(first, { executionId, triggerRunId, inputs: run.inputs, actor: run.actor });
    return this.sql.begin(async (tx) => {
      const triggerId =
        found.source === 'trigger'
          ? found.triggerId
          : ((
              await tx<{ id: string }[]>`
                insert into configured_triggers (project_id, name) values (${found.projectId}, ${found.trigger.name})
                on conflict (project_id, name) do update set name = excluded.name
                returning id`
            )[0] as { id: string }).id;
      const [inserted] = await tx<{ receiptId: string }[]>`
        insert into trigger_runs (id, organization_id, project_id, delivery_key, request_digest, trigger_name,
          configuration_revision_id, trigger_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, api_key_id)
        values (${triggerRunId}, ${run.organizationId}, ${found.projectId}, ${run.deliveryKey}, ${run.requestDigest}, ${found.trigger.name},
          ${found.source === 'configuration' ? found.revisionId : null}, ${found.source === 'trigger' ? found.revisionId : null},
          ${triggerId}, ${run.actor}, ${tx.json(run.inputs)}, ${tx.json(run.plan as never)}, ${found.trigger.maxRuntimeMs}, ${run.apiKeyId})
        on conflict (organization_id, delivery_key) do nothing
        returning receipt_id as "receiptId"`;
      if (inserted === undefined) return undefined;
      await insertExecution(tx, { executionId, triggerRunId, stepIndex: 0, daemonId: run.daemonId, assignment });
      return {
        deliveryKey: run.deliveryKey,
        triggerRunId,
        receiptId: inserted.receiptId,
        triggerId,
        triggerName: found.trigger.name,
        executionId,
        daemonId: run.daemonId,
        agentId: first.agent.provider,
      };
    });
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
