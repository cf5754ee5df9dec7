import type { RunCancellation, RunDetail, RunList } from '../dashboard/types.js';
import type { Sql } from 'postgres';
import { RunListRepository } from './run-list.js';
import { runView } from './run-view.js';
import { isUuid } from '@hub/schemas';
import { cancelRun } from './cancel.js';
import { credentialName } from '../audit/index.js';
import { outputStore, type OutputServer } from './output/dashboard.js';

const date = (value: string | null | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(value);

/**
 * The dashboard's runs: the list by keyset, one run as GET /api/v1/runs/{id} answers it (with who
 * started and cancelled it), its executions' output, and its cancellation by a person.
 */
export function runStore(sql: Sql, serveOutput?: OutputServer) {
  const runs = new RunListRepository(sql);
  return {
    ...outputStore(sql, serveOutput),
    async runs(
      organizationId: string,
      page: { cursor: string | undefined; limit: number; source?: RunDetail['source'] },
    ): Promise<RunList> {
      if (!isUuid(organizationId) || (page.cursor !== undefined && !isUuid(page.cursor)))
        return { runs: [], older: undefined };
      const rows = await runs.list(organizationId, page.cursor, page.limit, page.source);
      const shown = rows.slice(0, page.limit);
      return { runs: shown, older: rows.length > page.limit ? shown.at(-1)?.id : undefined };
    },
    async run(organizationId: string, runId: string): Promise<RunDetail | undefined> {
      if (!isUuid(organizationId) || !isUuid(runId)) return undefined;
      const run = await runView(sql, organizationId, runId);
      if (run === undefined) return undefined;
      const people = await whoOf(sql, run.triggerRunId);
      return {
        source: run.source,
        event: run.event,
        message: run.message,
        ...people,
        // A run no one dispatched: its schedule's (the tick is on the run's page).
        ...(run.source === 'schedule' ? { dispatchedBy: 'its schedule' } : {}),
        ...(run.source === 'github' ? { dispatchedBy: 'GitHub (a webhook event)' } : {}),
        cancelRequestedAt: date(run.cancelRequestedAt),
        id: run.triggerRunId,
        trigger: run.trigger,
        projectSlug: run.projectSlug,
        actor: run.actor,
        status: run.status,
        deliveryKey: run.deliveryKey,
        inputs: run.inputs,
        createdAt: new Date(run.createdAt),
        finishedAt: date(run.finishedAt),
        executions: run.executions.map((execution) => ({
          id: execution.executionId,
          stepId: execution.stepId,
          daemon: execution.daemon,
          status: execution.status,
          exitCode: execution.exitCode ?? null,
          message: execution.message ?? null,
          createdAt: new Date(execution.createdAt),
          startedAt: date(execution.startedAt),
          finishedAt: date(execution.finishedAt),
        })),
      };
    },
    async cancelRun(accountId: string, organizationId: string, runId: string): Promise<RunCancellation> {
      if (!isUuid(organizationId) || !isUuid(runId) || !isUuid(accountId)) return 'not_found';
      const result = await cancelRun(sql, organizationId, runId.toLowerCase(), { kind: 'account', id: accountId });
      if (result.ok) return 'cancelled';
      return result.reason === 'not_found' ? 'not_found' : { finished: result.status as RunDetail['status'] };
    },
  };
}

/**
 * Who dispatched the run and who asked for its cancellation, as people read them: a person in the
 * dashboard by name, a CLI login as its person and the login's name, an API key by its name and prefix.
 */
async function whoOf(sql: Sql, runId: string): Promise<{ dispatchedBy: string; cancelledBy: string | null }> {
  const [row] = await sql<{ dispatchedBy: string; cancelledBy: string | null }[]>`
    select ${credential(sql, 'dk', 'dka', 'dp')} as "dispatchedBy", ${credential(sql, 'ck', 'cka', 'cp')} as "cancelledBy"
    from trigger_runs r
    left join api_keys dk on dk.id = r.api_key_id left join accounts dka on dka.id = dk.account_id
    left join accounts dp on dp.id = r.dispatched_by_account
    left join api_keys ck on ck.id = r.cancelled_by_api_key_id left join accounts cka on cka.id = ck.account_id
    left join accounts cp on cp.id = r.cancelled_by_account
    where r.id = ${runId}`;
  return row ?? { dispatchedBy: 'unknown', cancelledBy: null };
}

function credential(sql: Sql, key: string, keyPerson: string, person: string) {
  const p = sql(person);
  return sql`case
    when ${p}.id is not null then ${p}.name || ' (dashboard)'
    when ${sql(key)}.id is not null then ${credentialName(sql, key, keyPerson)}
  end`;
}
