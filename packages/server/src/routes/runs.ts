import type { Request } from 'express';
import type { Sql } from 'postgres';
import { runView } from '../db/run-view.js';
import { RunRepository, type Dispatched } from '../db/runs.js';
import { startRun } from '../dispatch/start.js';
import type { Hub } from '../hub.js';
import { authOf, contextOf } from '../http/context.js';
import { handle, type Call, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A dispatch is two statements: the key check, which also reads the trigger and any earlier
 * dispatch with the delivery key (so the body is parsed first, up to 1 MiB), and one write.
 */
const early = {
  bodyFirst: 1024 * 1024,
  prefetch: (sql: Sql, req: Request) => {
    const body = (typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return RunRepository.lookupColumn(sql, { projectSlug: text(body.projectSlug), trigger: text(body.trigger), deliveryKey: text(body.deliveryKey) });
  },
};

/** Manual runs (section 4.8), one dispatch answered in two shapes, and the runs themselves. */
export function runHandlers(hub: Hub): Handlers {
  const dispatch = async ({ req, res, body }: Call<'dispatchManualRunA' | 'dispatchManualRunB'>) => {
    const { organizationId, keyId } = authOf(req);
    const result = await startRun(hub.runs, { organizationId, apiKeyId: keyId, request: body, prefetched: contextOf(req).prefetched });
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.dispatched;
  };
  return {
    dispatchManualRunA: handle(async (call) => void call.res.json(answerA(await dispatch(call))), early),
    dispatchManualRunB: handle(async (call) => void call.res.json(answerB(await dispatch(call))), early),
    getRun: handle(async ({ req, res, params }) => {
      const id = params.triggerRunId;
      const run = UUID.test(id) ? await runView(hub.sql, authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (run === undefined) throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      res.json(run);
    }),
  };
}

function answerA(dispatched: Dispatched) {
  const { deliveryKey, triggerId, executionId, daemonId, agentId } = dispatched;
  return { deliveryKey, triggerId, executionId, status: 'spawning', daemonId, agentId };
}

function answerB(dispatched: Dispatched) {
  const { deliveryKey, receiptId, triggerRunId, triggerName } = dispatched;
  return { deliveryKey, providerEventReceiptId: receiptId, triggerRunId, configuredTriggerName: triggerName, workflowStatus: 'running' };
}
