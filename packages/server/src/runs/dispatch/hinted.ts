import { digest } from '../../auth/secrets.js';
import { countStarted } from '../../metrics/index.js';
import { RunRepository } from './sql.js';
import type { Dispatched, Dispatcher } from './model.js';
import { assignmentOf } from './plan.js';
import { digestOf, type DispatchRequest } from './request.js';
import { prepareRun } from './start.js';

/**
 * A dispatch in one round trip, before the key check, when this instance has seen the key and
 * the trigger dispatch before: the run is planned from the hinted trigger and started by one
 * statement that checks every hint again (`RunRepository.dispatchHinted`). Undefined when there
 * is no hint, a check in the plan would refuse, or the statement started nothing: the request then
 * takes the exact path (`startRun` after the key check), which gives every refusal in its order
 * and answers a replay; nothing was written. So this path only ever answers a new run that the
 * exact path would have started too.
 */
export async function dispatchHinted(
  dispatcher: Dispatcher,
  call: { token: string; request: DispatchRequest },
): Promise<Dispatched | undefined> {
  const { hints } = dispatcher;
  const keyDigest = digest(call.token);
  const hex = keyDigest.toString('hex');
  const key = hints.key(hex);
  if (key === undefined) return undefined;
  const { request } = call;
  const hint = hints.trigger(key.organizationId, request.projectSlug, request.trigger);
  if (hint === undefined) return undefined;
  const prepared = prepareRun(
    hint.trigger,
    hint.environments,
    hint.triggerRevisionId ?? (hint.configurationRevisionId as string),
    request,
  );
  if (!prepared.ok) return undefined;
  const { plan, inputs } = prepared;
  const first = plan[0];
  const triggerRunId = crypto.randomUUID();
  const executionId = crypto.randomUUID();
  const result = await new RunRepository(dispatcher.sql, dispatcher.timing).dispatchHinted({
    triggerRunId,
    executionId,
    organizationId: key.organizationId,
    keyId: key.keyId,
    keyDigest,
    cliCredentials: dispatcher.cliCredentials,
    projectSlug: request.projectSlug,
    hint,
    deliveryKey: request.deliveryKey,
    requestDigest: digestOf(request),
    actor: request.actor,
    inputs,
    plan,
    assignment: assignmentOf(first, { executionId, triggerRunId, inputs, actor: request.actor }),
  });
  if (!result.started) {
    if (!result.keyValid) hints.forgetKey(hex);
    else if (!result.current) hints.forgetTrigger(key.organizationId, request.projectSlug, request.trigger);
    return undefined;
  }
  countStarted('manual');
  dispatcher.wake(result.daemonId);
  return {
    deliveryKey: request.deliveryKey,
    triggerRunId,
    receiptId: result.receiptId,
    triggerId: hint.triggerId,
    triggerName: hint.trigger.name,
    executionId,
    daemonId: result.daemonId,
    agentId: first.agent.provider,
  };
}
