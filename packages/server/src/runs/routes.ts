import { isUuid } from '@hub/schemas';
import { OutputRepository } from './output/sql.js';
import { executionView, runView, runViews } from './run-view.js';
import { cancelRun } from './cancel.js';
import { dispatchHandlers } from './dispatch/routes.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { sendOutput } from './output/stream.js';

/** Manual runs (section 4.8): their dispatch (runs/dispatch/routes.ts), and the runs themselves. */
export function runHandlers(hub: Hub): Handlers {
  return {
    ...dispatchHandlers(hub),
    getRun: handle(async ({ req, res, params }) => {
      const id = params.triggerRunId;
      const run = isUuid(id) ? await runView(hub.sql, authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (run === undefined) throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      res.json(run);
    }),
    listRuns: handle(async ({ req, res, query }) => {
      const limit = query.limit ?? 50;
      const before = query.cursor === undefined ? undefined : fromCursor(query.cursor);
      const filter = { projectSlug: query.project, trigger: query.trigger, status: query.status, source: query.source };
      const runs =
        before === null ? undefined : await runViews(hub.sql, authOf(req).organizationId, filter, before, limit);
      if (runs === undefined) throw badCursor();
      const page = runs.slice(0, limit);
      const last = page.at(-1);
      res.json({
        runs: page,
        nextCursor: runs.length > limit && last !== undefined ? toCursor(last.triggerRunId) : null,
      });
    }),
    cancelRun: handle(async ({ req, res, params }) => {
      const id = params.triggerRunId;
      const { organizationId, keyId } = authOf(req);
      const result = isUuid(id)
        ? await cancelRun(hub.sql, organizationId, id.toLowerCase(), { kind: 'key', id: keyId })
        : ({ ok: false, reason: 'not_found' } as const);
      if (!result.ok && result.reason === 'not_found')
        throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      if (!result.ok)
        throw new HttpProblem(
          'run_finished',
          `The run has already ended (${result.status}); there is nothing left to cancel.`,
          { extensions: { runStatus: result.status } },
        );
      res.status(202).json(await runView(hub.sql, organizationId, id.toLowerCase()));
    }),
    getExecution: handle(async ({ req, res, params }) => {
      const id = params.executionId;
      const view = isUuid(id) ? await executionView(hub.sql, authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (view === undefined) throw new HttpProblem('execution_not_found', `The organization has no execution ${id}.`);
      res.json(view);
    }),
    getExecutionOutput: handle(async ({ req, res, params }) => {
      await sendOutput(hub, req, res, await outputState(hub, authOf(req).organizationId, params.executionId));
    }),
    getRunExecutionOutput: handle(async ({ req, res, params }) => {
      await sendOutput(
        hub,
        req,
        res,
        await outputState(hub, authOf(req).organizationId, params.executionId, params.triggerRunId),
      );
    }),
  };
}

async function outputState(hub: Hub, organizationId: string, executionId: string, triggerRunId?: string) {
  const valid = isUuid(executionId) && (triggerRunId === undefined || isUuid(triggerRunId));
  const state = valid
    ? await new OutputRepository(hub.sql).state(organizationId, executionId.toLowerCase(), triggerRunId?.toLowerCase())
    : undefined;
  if (state === undefined)
    throw new HttpProblem(
      'execution_not_found',
      `The organization has no execution ${executionId}${triggerRunId === undefined ? '' : ` in run ${triggerRunId}`}.`,
    );
  return state;
}

/** A cursor names the last run of a page: its id's 16 bytes, base64url. */
function toCursor(triggerRunId: string): string {
  return Buffer.from(triggerRunId.replaceAll('-', ''), 'hex').toString('base64url');
}

/** The run id a cursor names; null when it is not a cursor this hub gives. */
function fromCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{22}$/.test(cursor)) return null;
  const hex = Buffer.from(cursor, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const badCursor = () =>
  new HttpProblem(
    'invalid_request',
    'The cursor is not one this hub gave for this organization; pass `nextCursor` from an answer.',
    {
      issues: [
        { pointer: '', code: 'request.pattern', message: 'The query parameter cursor is not a cursor this hub gave.' },
      ],
    },
  );
