import type { RunDetail, RunList } from '../dashboard/types.js';
import type { Sql } from 'postgres';
import { RunListRepository } from './run-list.js';
import { runView } from './run-view.js';
import { isUuid } from '@hub/schemas';

const date = (value: string | null | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(value);

/** The dashboard's runs: the list by keyset, and one run as GET /api/v1/runs/{id} answers it. */
export function runStore(sql: Sql) {
  const runs = new RunListRepository(sql);
  return {
    async runs(organizationId: string, page: { cursor: string | undefined; limit: number }): Promise<RunList> {
      if (!isUuid(organizationId) || (page.cursor !== undefined && !isUuid(page.cursor)))
        return { runs: [], older: undefined };
      const rows = await runs.list(organizationId, page.cursor, page.limit);
      const shown = rows.slice(0, page.limit);
      return { runs: shown, older: rows.length > page.limit ? shown.at(-1)?.id : undefined };
    },
    async run(organizationId: string, runId: string): Promise<RunDetail | undefined> {
      if (!isUuid(organizationId) || !isUuid(runId)) return undefined;
      const run = await runView(sql, organizationId, runId);
      if (run === undefined) return undefined;
      return {
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
  };
}
