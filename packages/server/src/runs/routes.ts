import type { Request } from 'express';
import type { Sql } from 'postgres';
import { OutputRepository } from './output/sql.js';
import { executionView, runView, runViews } from './run-view.js';
import { cancelRun } from './cancel.js';
import { RunRepository } from './dispatch/sql.js';
import type { Dispatched } from './dispatch/model.js';
import { bearer } from '../auth/api-key.js';
import { digest } from '../auth/secrets.js';
import { dispatchHinted } from './dispatch/hinted.js';
import { DispatchHints } from './dispatch/hints.js';
import { AssignmentNotices } from './dispatch/notices.js';
import { startRun } from './dispatch/start.js';
import type { Hub } from '../hub.js';
import { authOf, contextOf } from '../http/context.js';
import { handle, type Call, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { sendOutput } from './output/stream.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A dispatch this instance has hints for is one statement (runs/dispatch/hinted.ts); otherwise two: the key check, which also reads the trigger and any earlier
 * dispatch with the delivery key, and one write. For that, a body announced at most 16 KiB long
 * (a dispatch is typically 150 to 500 bytes; a long prompt in `input` may be more) is parsed
 * before the key check; a larger or chunked one only after it, and the trigger is then read on its
 * own (`RunRepository.lookup`): a client without a key makes the hub parse no more than 16 KiB.
 */
const early = {
  bodyFirst: 16 * 1024,
  prefetch: (sql: Sql, req: Request) => {
    const body = (
      typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? req.body : {}
    ) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return RunRepository.lookupColumn(sql, {
      projectSlug: text(body.projectSlug),
      trigger: text(body.trigger),
      deliveryKey: text(body.deliveryKey),
    });
  },
};

/** Manual runs (section 4.8), one dispatch answered in two shapes, and the runs themselves. */
export function runHandlers(hub: Hub): Handlers {
  // Per instance: what its dispatches learned, for the one-statement path (runs/dispatch/hinted.ts).
  const hints = new DispatchHints();
  // On the key-check connections, whose commits do not wait for the disk (see AssignmentNotices).
  const notices = new AssignmentNotices(hub.authSql, hub.log);
  const wake = (daemonId: string) => notices.wake(daemonId);
  const dispatch = async ({ req, res, body }: Call<'dispatchManualRunA' | 'dispatchManualRunB'>) => {
    const { organizationId, keyId } = authOf(req);
    const prefetched = contextOf(req).prefetched ?? (await hub.runs.lookup(organizationId, body));
    const result = await startRun(hub.runs, { organizationId, apiKeyId: keyId, request: body, prefetched, wake });
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    const token = bearer(req.get('authorization'));
    if (token !== undefined) hints.rememberKey(digest(token).toString('hex'), { keyId, organizationId });
    if (result.hint !== undefined) hints.rememberTrigger(organizationId, body.projectSlug, body.trigger, result.hint);
    return result.dispatched;
  };
  // Before the key check: a run started in one statement from hints, or false for the exact path.
  const attempt = async (
    { req, res, body }: Call<'dispatchManualRunA' | 'dispatchManualRunB'>,
    answer: (dispatched: Dispatched) => object,
  ) => {
    const token = bearer(req.get('authorization'));
    const dispatched =
      token === undefined ? undefined : await dispatchHinted(hub.runs, hints, { token, request: body, wake });
    if (dispatched === undefined) return false;
    res.json(answer(dispatched));
    return true;
  };
  return {
    dispatchManualRunA: handle(async (call) => void call.res.json(answerA(await dispatch(call))), {
      ...early,
      attempt: (call) => attempt(call, answerA),
    }),
    dispatchManualRunB: handle(async (call) => void call.res.json(answerB(await dispatch(call))), {
      ...early,
      attempt: (call) => attempt(call, answerB),
    }),
    getRun: handle(async ({ req, res, params }) => {
      const id = params.triggerRunId;
      const run = UUID.test(id) ? await runView(hub.sql, authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (run === undefined) throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      res.json(run);
    }),
    listRuns: handle(async ({ req, res, query }) => {
      const limit = query.limit ?? 50;
      const before = query.cursor === undefined ? undefined : fromCursor(query.cursor);
      const filter = { projectSlug: query.project, trigger: query.trigger, status: query.status };
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
      const result = UUID.test(id)
        ? await cancelRun(hub.sql, organizationId, id.toLowerCase(), keyId)
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
      const view = UUID.test(id)
        ? await executionView(hub.sql, authOf(req).organizationId, id.toLowerCase())
        : undefined;
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
  const valid = UUID.test(executionId) && (triggerRunId === undefined || UUID.test(triggerRunId));
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

function answerA(dispatched: Dispatched) {
  const { deliveryKey, triggerId, executionId, daemonId, agentId } = dispatched;
  return { deliveryKey, triggerId, executionId, status: 'spawning', daemonId, agentId };
}

function answerB(dispatched: Dispatched) {
  const { deliveryKey, receiptId, triggerRunId, triggerName } = dispatched;
  return {
    deliveryKey,
    providerEventReceiptId: receiptId,
    triggerRunId,
    configuredTriggerName: triggerName,
    workflowStatus: 'running',
  };
}
