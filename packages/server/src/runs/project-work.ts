// The project page's work: the triggers of the active configuration (with whether each step's
// daemon is online), the project's recent runs, and a run a person starts from its Run form
// through the API's own dispatch (runs/dispatch/start.ts).
import { declaredInputs, nextFireTimes, type CompiledConfiguration } from '@hub/compiler';
import { isUuid, SLUG_PATTERN } from '@hub/schemas';
import type { Sql } from 'postgres';
import type { PersonDispatch, PersonDispatchResult, RunRow, TriggerView } from '../dashboard/types.js';
import type { Dispatcher, DispatchRefusal } from './dispatch/model.js';
import { startRunAsPerson } from './dispatch/start.js';

export function projectWorkStore(sql: Sql, dispatcher: Dispatcher | undefined) {
  return {
    async projectTriggers(organizationId: string, slug: string): Promise<TriggerView[]> {
      if (!isUuid(organizationId) || !SLUG_PATTERN.test(slug)) return [];
      const [row] = await sql<{ model: CompiledConfiguration }[]>`
        select r.model from projects p join configuration_revisions r on r.project_id = p.id and r.active
        where p.organization_id = ${organizationId} and p.slug = ${slug}`;
      if (row === undefined) return [];
      const { environments, triggers } = row.model;
      const names = [...new Set(environments.map((environment) => environment.daemon))];
      const online = new Set(
        (
          await sql<{ name: string }[]>`
            select name from daemons
            where organization_id = ${organizationId} and name = any(${names}) and retired_at is null
              and last_seen_at > now() - ${dispatcher?.timing.offlineAfterMs ?? 30_000} * interval '1 millisecond'`
        ).map((daemon) => daemon.name),
      );
      return triggers.map((trigger) => ({
        name: trigger.name,
        enabled: trigger.enabled,
        kinds: trigger.events.map((event) => event.kind),
        inputs: declaredInputs(trigger).map((input) => ({
          name: input.name,
          description: input.description,
          required: input.required,
          default: input.default,
          enum: input.enum,
        })),
        allowlist: trigger.allowlist,
        schedules: trigger.events.flatMap((event) =>
          event.kind === 'schedule'
            ? event.entries.map(({ cron, timezone, input }) => ({
                cron,
                timezone,
                input,
                next: nextFireTimes(cron, timezone, new Date(), 3),
              }))
            : [],
        ),
        maxRuntimeMs: trigger.maxRuntimeMs,
        steps: trigger.steps.map((step) => {
          const environment = environments.find((one) => one.name === step.environment);
          return {
            id: step.id,
            environment: step.environment,
            cwd: environment?.cwd ?? '',
            daemon: environment?.daemon ?? '',
            online: environment !== undefined && online.has(environment.daemon),
            provider: step.agent.provider,
            mode: step.agent.mode,
            model: step.agent.model,
          };
        }),
      }));
    },
    async projectRuns(organizationId: string, slug: string, limit: number): Promise<RunRow[]> {
      if (!isUuid(organizationId) || !SLUG_PATTERN.test(slug)) return [];
      return sql<RunRow[]>`
        select r.id, r.trigger_name as "trigger", p.slug as "projectSlug", r.actor, r.source, r.status,
          r.created_at as "createdAt", r.finished_at as "finishedAt"
        from projects p join trigger_runs r on r.project_id = p.id
        where p.organization_id = ${organizationId} and p.slug = ${slug}
        order by r.created_at desc, r.id desc limit ${limit}`;
    },
    async dispatchRun(
      accountId: string,
      organizationId: string,
      slug: string,
      dispatch: PersonDispatch,
    ): Promise<PersonDispatchResult> {
      if (dispatcher === undefined || !isUuid(organizationId) || !isUuid(accountId))
        return { ok: false, status: 503, message: 'This hub cannot start runs from the dashboard.' };
      const result = await startRunAsPerson(dispatcher, {
        organizationId,
        accountId,
        request: { projectSlug: slug, ...dispatch },
      });
      return result.ok ? { ok: true, runId: result.dispatched.triggerRunId } : refusal(result.refusal, dispatch);
    },
  };
}

/** A refusal as the form says it: what held the run back, and what to do. */
function refusal(refused: DispatchRefusal, dispatch: PersonDispatch): PersonDispatchResult & { ok: false } {
  switch (refused.reason) {
    case 'actor_forbidden':
      return {
        ok: false,
        status: 403,
        field: 'actor',
        message: `"${dispatch.actor}" may not run ${dispatch.trigger}: its filters.from_users has ${refused.allowlist.join(', ') || 'no one'}.`,
      };
    case 'daemon_offline':
      return {
        ok: false,
        status: 409,
        message: refused.enrolled
          ? `The daemon ${refused.daemon} is offline: start it (hub daemon run) and try again.`
          : `No daemon named ${refused.daemon} is enrolled: enroll it (hub connect --name ${refused.daemon}) and try again.`,
      };
    case 'input_invalid':
      return {
        ok: false,
        status: 400,
        field: refused.issues[0]?.pointer.split('/').at(-1),
        message: refused.issues.map((issue) => issue.message).join(' '),
      };
    case 'trigger_disabled':
      return { ok: false, status: 409, message: `The trigger ${refused.trigger} is disabled in the configuration.` };
    case 'key_revoked':
      return { ok: false, status: 403, message: 'You are no longer a member of this organization.' };
    case 'delivery_key_reused':
      return { ok: false, status: 409, message: 'This form was sent before with other values: reload the page.' };
    default:
      return {
        ok: false,
        status: 409,
        message: `The configuration changed since the page was loaded (${refused.reason}): reload the page.`,
      };
  }
}
