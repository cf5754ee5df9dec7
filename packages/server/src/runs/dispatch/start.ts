import {
  declaredInputs,
  didYouMean,
  parseManualInput,
  type CompiledEnvironment,
  type CompiledTrigger,
} from '@hub/compiler';
import type { Fragment, Sql } from 'postgres';
import { digest } from '../../auth/secrets.js';
import { RunRepository, type Caller } from './sql.js';
import type {
  Delivery,
  Dispatched,
  Dispatcher,
  DispatchRefusal,
  FoundTrigger,
  PlannedStep,
  TriggerHint,
} from './model.js';
import { assignmentOf, planSteps } from './plan.js';
import { digestOf, type DispatchRequest } from './request.js';

export type StartResult =
  { ok: true; dispatched: Dispatched; replayed: boolean } | { ok: false; refusal: DispatchRefusal };

/**
 * What a dispatch reads in the key check's own statement (auth/api-key.ts's `Prefetch`), from its
 * body as parsed before the key check: `startRun` reads it as `prefetched`.
 */
export function dispatchPrefetch(sql: Sql, body: unknown): Fragment {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<
    string,
    unknown
  >;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return RunRepository.lookupColumn(sql, {
    projectSlug: text(fields.projectSlug),
    trigger: text(fields.trigger),
    deliveryKey: text(fields.deliveryKey),
  });
}

/**
 * A dispatch's decisions, in the order the API promises them (DECISIONS.md, Dispatch): a replay
 * of the delivery key's earlier dispatch (or delivery_key_reused for a different request), the
 * project and the trigger, enabled, the expected version, the actor, the input, then one write
 * that starts the run when the key is still unrevoked and the first step's daemon is online, whose
 * long-polls are then woken. `prefetched` is what the key check read (`dispatchPrefetch`), or
 * null when the body came after it: read here then. A dispatch that passed teaches the
 * one-statement path (runs/dispatch/hinted.ts) its key, and a new run its trigger.
 */
export async function startRun(
  dispatcher: Dispatcher,
  call: {
    organizationId: string;
    apiKeyId: string;
    /** The bearer credential the key check passed, if the request had one. */
    token: string | undefined;
    request: DispatchRequest;
    prefetched: unknown;
  },
): Promise<StartResult> {
  const { organizationId, apiKeyId, request } = call;
  const runs = new RunRepository(dispatcher.sql, dispatcher.timing);
  const result = await start(runs, dispatcher.wake, {
    organizationId,
    caller: { kind: 'key', id: apiKeyId },
    request,
    prefetched: call.prefetched ?? (await runs.lookup(organizationId, request)),
  });
  if (!result.ok) return result;
  const { hints } = dispatcher;
  if (call.token !== undefined)
    hints.rememberKey(digest(call.token).toString('hex'), { keyId: apiKeyId, organizationId });
  if (result.hint !== undefined)
    hints.rememberTrigger(organizationId, request.projectSlug, request.trigger, result.hint);
  return { ok: true, dispatched: result.dispatched, replayed: result.replayed };
}

/**
 * A run a person starts in the dashboard: the same decisions as `startRun`'s, in the same order,
 * with the person's membership read again in the write's statement where a key's would be (a
 * person no longer a member: `key_revoked`). Not from hints: the dashboard's dispatches are few.
 */
export async function startRunAsPerson(
  dispatcher: Dispatcher,
  call: { organizationId: string; accountId: string; request: DispatchRequest },
): Promise<StartResult> {
  const runs = new RunRepository(dispatcher.sql, dispatcher.timing);
  const { organizationId, request } = call;
  const result = await start(runs, dispatcher.wake, {
    organizationId,
    caller: { kind: 'account', id: call.accountId },
    request,
    prefetched: await runs.lookup(organizationId, request),
  });
  return result.ok ? { ok: true, dispatched: result.dispatched, replayed: result.replayed } : result;
}

async function start(
  runs: RunRepository,
  wake: (daemonId: string) => void,
  call: { organizationId: string; caller: Caller; request: DispatchRequest; prefetched: unknown },
): Promise<
  { ok: true; dispatched: Dispatched; replayed: boolean; hint?: TriggerHint } | { ok: false; refusal: DispatchRefusal }
> {
  const { organizationId, caller, request } = call;
  const requestDigest = digestOf(request);
  const replay = (earlier: Delivery) =>
    earlier.requestDigest.equals(requestDigest)
      ? ({ ok: true, dispatched: earlier.dispatched, replayed: true } as const)
      : refused({ reason: 'delivery_key_reused' });
  // Read with the key check: the earlier dispatch with this key, if any, and the trigger.
  const { earlier, found } = RunRepository.lookupOf(call.prefetched);
  if (earlier !== undefined) return replay(earlier);

  if (found === 'project_not_found') return refused({ reason: 'project_not_found' });
  if (found === 'trigger_not_found') {
    const names = await runs.manualTriggerNames(organizationId, request.projectSlug);
    return refused({ reason: 'trigger_not_found', didYouMean: didYouMean(request.trigger, names) });
  }
  const prepared = prepareRun(found.trigger, found.environments, found.revisionId, request);
  if (!prepared.ok) return prepared;
  const { plan, inputs } = prepared;
  const { trigger } = found;
  const first = plan[0];
  const triggerRunId = crypto.randomUUID();
  const executionId = crypto.randomUUID();
  const assignment = assignmentOf(first, { executionId, triggerRunId, inputs, actor: request.actor });
  const triggerId =
    found.source === 'trigger'
      ? found.triggerId
      : (found.configuredTriggerId ?? (await runs.configuredTrigger(found.projectId, trigger.name)));
  // One statement checks the first step's daemon is online and starts the run.
  const result = await runs.dispatch({
    triggerRunId,
    executionId,
    organizationId,
    found,
    triggerId,
    deliveryKey: request.deliveryKey,
    requestDigest,
    actor: request.actor,
    inputs,
    plan,
    assignment,
    caller,
  });
  // Revoked since the key check: nothing started, and the key's 401 (ahead of every other refusal of the write).
  if (result.outcome === 'key_revoked') return refused({ reason: 'key_revoked' });
  if (result.outcome === 'dispatched') {
    const { daemonId, receiptId } = result;
    wake(daemonId);
    const dispatched = {
      deliveryKey: request.deliveryKey,
      triggerRunId,
      receiptId,
      triggerId,
      triggerName: trigger.name,
      executionId,
      daemonId,
      agentId: first.agent.provider,
    };
    return { ok: true, dispatched, replayed: false, hint: hintOf(found, triggerId) };
  }
  if (result.outcome !== 'taken')
    return refused({ reason: 'daemon_offline', daemon: first.daemon, enrolled: result.outcome !== 'not_enrolled' });
  // A concurrent dispatch with the same key inserted first: answer as its replay.
  const concurrent = await runs.delivery(organizationId, request.deliveryKey);
  if (concurrent === undefined) throw new Error('a delivery key conflicted but its run is not there');
  return replay(concurrent);
}

const refused = (refusal: DispatchRefusal) => ({ ok: false, refusal }) as const;

/** What a run started from `found` teaches the one-statement path (runs/dispatch/hinted.ts). */
function hintOf(found: FoundTrigger, triggerId: string): TriggerHint {
  const { projectId, trigger, environments } = found;
  return found.source === 'configuration'
    ? {
        projectId,
        configurationRevisionId: found.revisionId,
        triggerRevisionId: null,
        triggerId,
        trigger,
        environments,
      }
    : {
        projectId,
        configurationRevisionId: found.configurationRevisionId,
        triggerRevisionId: found.revisionId,
        triggerId,
        trigger,
        environments,
      };
}

/**
 * The refusals that depend on the trigger alone, in their order (a manual.run trigger, enabled,
 * the expected version `revisionId`, the actor, the input), and then the run's plan: the same for
 * as long as the revision is the active one.
 */
export function prepareRun(
  trigger: CompiledTrigger,
  environments: CompiledEnvironment[],
  revisionId: string,
  request: DispatchRequest,
):
  | { ok: true; plan: [PlannedStep, ...PlannedStep[]]; inputs: Record<string, string> }
  | { ok: false; refusal: DispatchRefusal } {
  if (!trigger.events.some((event) => event.kind === 'manual.run'))
    return refused({ reason: 'trigger_not_found', didYouMean: '' });
  if (!trigger.enabled) return refused({ reason: 'trigger_disabled', trigger: trigger.name });
  if (request.expectedVersionId !== undefined && request.expectedVersionId.toLowerCase() !== revisionId)
    return refused({
      reason: 'version_not_current',
      expectedVersionId: request.expectedVersionId,
      activeVersionId: revisionId,
    });
  if (!trigger.allowlist.includes(request.actor))
    return refused({ reason: 'actor_forbidden', allowlist: trigger.allowlist });
  const parsed = parseManualInput(request.input, declaredInputs(trigger));
  if (!parsed.ok) return refused({ reason: 'input_invalid', issues: parsed.issues });
  const plan = planSteps(trigger, environments, { prompt: parsed.prompt, inputs: parsed.inputs });
  if (plan[0] === undefined) return refused({ reason: 'no_steps', trigger: trigger.name });
  return { ok: true, plan: plan as [PlannedStep, ...PlannedStep[]], inputs: parsed.inputs };
}
