import type { Request, Response } from 'express';
import type { Sql } from 'postgres';
import { runView } from '../db/run-view.js';
import { RunRepository, type Dispatched } from '../db/runs.js';
import type { DispatchRequest } from '../dispatch/request.js';
import { startRun } from '../dispatch/start.js';
import type { Hub } from '../hub.js';
import { BodyCheck, isObject } from '../http/body.js';
import { authOf, contextOf, inputOf } from '../http/context.js';
import { SHAPE_A_DISPATCH } from '../http/middleware.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';
import { scoped } from './scoped.js';


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A dispatch is three statements: the key check, which also reads the trigger and any earlier
 * dispatch with the delivery key (so the body is parsed first, up to 1 MiB), and one write.
 */
const dispatchOptions = {
  read: readDispatchBody,
  bodyFirst: 1024 * 1024,
  prefetch: (sql: Sql, req: Request) => {
    const body = (isObject(req.body) ? req.body : {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return RunRepository.lookupColumn(sql, { projectSlug: text(body.projectSlug), trigger: text(body.trigger), deliveryKey: text(body.deliveryKey) });
  },
};

/** Dispatch of manual runs (section 4.8): one implementation, two answer shapes. */
export function dispatchRoutes(hub: Hub): Route[] {
  const dispatch = (shape: 'A' | 'B') => async (req: Request, res: Response) => {
    const { organizationId, keyId } = authOf(req);
    const request = inputOf<DispatchRequest>(req);
    const { dispatched, replayed } = await startRun(hub.runs, { organizationId, apiKeyId: keyId, request, prefetched: contextOf(req).prefetched });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.json(shape === 'A' ? answerA(dispatched) : answerB(dispatched));
  };
  return [
    scoped(hub, 'POST', SHAPE_A_DISPATCH, 'runs:dispatch', dispatch('A'), dispatchOptions),
    scoped(hub, 'POST', '/api/v1/manual-runs', 'runs:dispatch', dispatch('B'), dispatchOptions),
    scoped(hub, 'GET', '/api/v1/runs/:triggerRunId', 'runs:read', async (req, res) => {
      const id = String(req.params.triggerRunId);
      const run = UUID.test(id) ? await runView(hub.sql, authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (run === undefined) throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      res.json(run);
    }),
  ];
}

function answerA(dispatched: Dispatched) {
  const { deliveryKey, triggerId, executionId, daemonId, agentId } = dispatched;
  return { deliveryKey, triggerId, executionId, status: 'spawning', daemonId, agentId };
}

function answerB(dispatched: Dispatched) {
  const { deliveryKey, receiptId, triggerRunId, triggerName } = dispatched;
  return { deliveryKey, providerEventReceiptId: receiptId, triggerRunId, configuredTriggerName: triggerName, workflowStatus: 'running' };
}

function readDispatchBody(body: unknown): DispatchRequest {
  const check = new BodyCheck(body);
  const fields = check.object(['projectSlug', 'expectedVersionId', 'trigger', 'actor', 'deliveryKey', 'input']);
  const request: Partial<DispatchRequest> = {};
  if (fields !== undefined) {
    request.projectSlug = check.string(fields, 'projectSlug', { maxLength: 255 });
    request.expectedVersionId = check.string(fields, 'expectedVersionId', { required: false, pattern: UUID, patternHint: 'must be a UUID' });
    request.trigger = check.string(fields, 'trigger', { maxLength: 255 });
    request.actor = check.string(fields, 'actor', { maxLength: 255, pattern: /\S/, patternHint: 'must not be blank' });
    request.deliveryKey = check.string(fields, 'deliveryKey', { maxLength: 255, pattern: /^[\s\S]+$/, patternHint: 'must be 1 to 255 characters' });
    request.input = check.string(fields, 'input', { required: false });
  }
  check.done();
  return request as DispatchRequest;
}
