import { createHash } from 'node:crypto';
import { parseManualInput, renderPrompt, type CompiledEnvironment, type CompiledTrigger } from '@hub/compiler';
import type { Request, Response } from 'express';
import type { Sql } from 'postgres';
import { RunRepository, type Delivery, type Dispatched, type PlannedStep } from '../db/runs.js';
import type { Hub } from '../hub.js';
import { BodyCheck, isObject } from '../http/body.js';
import { authOf, contextOf, inputOf } from '../http/context.js';
import { SHAPE_A_DISPATCH } from '../http/middleware.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';
import { scoped } from './scoped.js';


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface DispatchRequest {
  projectSlug: string;
  expectedVersionId?: string;
  trigger: string;
  actor: string;
  deliveryKey: string;
  input?: string;
}

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
    const request = inputOf<DispatchRequest>(req);
    const { dispatched, replayed } = await dispatchRun(hub, req, request);
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.json(shape === 'A' ? answerA(dispatched) : answerB(dispatched));
  };
  return [
    scoped(hub, 'POST', SHAPE_A_DISPATCH, 'runs:dispatch', dispatch('A'), dispatchOptions),
    scoped(hub, 'POST', '/api/v1/manual-runs', 'runs:dispatch', dispatch('B'), dispatchOptions),
    scoped(hub, 'GET', '/api/v1/runs/:triggerRunId', 'runs:read', async (req, res) => {
      const id = String(req.params.triggerRunId);
      const run = UUID.test(id) ? await hub.runs.run(authOf(req).organizationId, id.toLowerCase()) : undefined;
      if (run === undefined) throw new HttpProblem('run_not_found', `The organization has no run ${id}.`);
      res.json(run);
    }),
  ];
}

async function dispatchRun(hub: Hub, req: Request, request: DispatchRequest): Promise<{ dispatched: Dispatched; replayed: boolean }> {
  const { organizationId, keyId } = authOf(req);
  const requestDigest = digestOf(request);
  const replay = (earlier: Delivery) => {
    if (!earlier.requestDigest.equals(requestDigest)) {
      throw new HttpProblem('delivery_key_reused', `The delivery key "${request.deliveryKey}" was used for a different dispatch; use a new key for a new run.`);
    }
    return { dispatched: earlier.dispatched, replayed: true };
  };
  // Read with the key check: the earlier dispatch with this key, if any, and the trigger.
  const { earlier, found } = RunRepository.lookupOf(contextOf(req).prefetched);
  if (earlier !== undefined) return replay(earlier);

  if (found === 'project_not_found') throw new HttpProblem('project_not_found', `The organization has no active project "${request.projectSlug}".`);
  const event = found === 'trigger_not_found' ? undefined : found.trigger.events.find((candidate) => candidate.kind === 'manual.run');
  if (found === 'trigger_not_found' || event === undefined) {
    throw new HttpProblem(
      'trigger_not_found',
      `Neither the active configuration of "${request.projectSlug}" nor the organization's triggers have a manual.run trigger "${request.trigger}".`,
    );
  }
  const { trigger } = found;
  if (!trigger.enabled) throw new HttpProblem('trigger_disabled', `The trigger "${trigger.name}" is disabled.`);
  if (request.expectedVersionId !== undefined && request.expectedVersionId.toLowerCase() !== found.revisionId) {
    throw new HttpProblem('version_not_current', `The revision ${request.expectedVersionId} is no longer active; ${found.revisionId} is.`, {
      extensions: { activeVersionId: found.revisionId },
    });
  }
  if (!trigger.allowlist.includes(request.actor)) {
    throw new HttpProblem('actor_forbidden', `"${request.actor}" is not in the trigger's filters.from_users.`);
  }
  const parsed = parseManualInput(request.input, event.inputs);
  if (!parsed.ok) throw new HttpProblem('invalid_request', 'The input does not fill the trigger\'s inputs; see issues.', { issues: parsed.issues });
  const plan = planSteps(trigger, found.environments, { prompt: parsed.prompt, inputs: parsed.inputs });
  const first = plan[0];
  if (first === undefined) throw new HttpProblem('trigger_not_found', `The trigger "${trigger.name}" has no steps.`);
  // One statement checks the first step's daemon is online and starts the run.
  const result = await hub.runs.dispatch({
    organizationId,
    found,
    deliveryKey: request.deliveryKey,
    requestDigest,
    actor: request.actor,
    inputs: parsed.inputs,
    plan,
    apiKeyId: keyId,
  });
  if (result.outcome === 'dispatched') return { dispatched: result.dispatched, replayed: false };
  if (result.outcome !== 'taken') {
    throw new HttpProblem('daemon_offline', `The daemon "${first.daemon}" that runs the first step is ${result.outcome === 'not_enrolled' ? 'not enrolled' : 'offline'}.`);
  }
  // A concurrent dispatch with the same key inserted first: answer as its replay.
  const concurrent = await hub.runs.delivery(organizationId, request.deliveryKey);
  if (concurrent === undefined) throw new Error('a delivery key conflicted but its run is not there');
  return replay(concurrent);
}

/** Each step with its daemon and cwd, its prompt rendered with the inputs and the prompt. */
function planSteps(trigger: CompiledTrigger, environments: CompiledEnvironment[], values: { prompt: string; inputs: Record<string, string> }): PlannedStep[] {
  const byName = new Map(environments.map((environment) => [environment.name, environment]));
  return trigger.steps.map((step) => {
    const environment = byName.get(step.environment);
    if (environment === undefined) throw new Error(`step ${step.id} names an environment the model lacks`);
    const { provider, mode, model } = step.agent;
    return {
      id: step.id,
      daemon: environment.daemon,
      cwd: environment.cwd,
      agent: { provider, ...(mode === undefined ? {} : { mode }), ...(model === undefined ? {} : { model }) },
      prompt: renderPrompt(step.prompt, values),
      maxRuntimeMs: step.maxRuntimeMs,
      idleTimeoutMs: step.idleTimeoutMs,
    };
  });
}

/** What makes two dispatches the same request: everything but the shape and the key itself. */
function digestOf(request: DispatchRequest): Buffer {
  const fields = [request.projectSlug, request.trigger, request.actor, request.input ?? '', request.expectedVersionId?.toLowerCase() ?? null];
  return createHash('sha256').update(JSON.stringify(fields)).digest();
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
