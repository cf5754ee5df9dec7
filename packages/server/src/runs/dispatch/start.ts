import { didYouMean, parseManualInput, type CompiledEnvironment, type CompiledTrigger } from '@hub/compiler';
import { unauthorized } from '../../auth/api-key.js';
import { RunRepository } from './sql.js';
import type { Delivery, Dispatched, FoundTrigger, PlannedStep, TriggerHint } from './model.js';
import { HttpProblem } from '../../problems/problem.js';
import { assignmentOf, planSteps } from './plan.js';
import { digestOf, type DispatchRequest } from './request.js';

/**
 * A dispatch's decisions, in the order the API promises them (DECISIONS.md, Dispatch): a replay
 * of the delivery key's earlier dispatch (or 409 for a different request), the project and the
 * trigger, enabled, the expected version, the actor, the input, then one write that starts the
 * run when the key is still unrevoked and the first step's daemon is online, whose long-polls
 * `wake` then wakes. `prefetched` is
 * what the key check read with `RunRepository.lookupColumn`. Refusals are thrown as problems.
 */
export async function startRun(
  runs: RunRepository,
  call: {
    organizationId: string;
    apiKeyId: string;
    request: DispatchRequest;
    prefetched: unknown;
    wake: (daemonId: string) => void;
  },
): Promise<{ dispatched: Dispatched; replayed: boolean; hint?: TriggerHint }> {
  const { organizationId, apiKeyId, request } = call;
  const requestDigest = digestOf(request);
  const replay = (earlier: Delivery) => {
    if (!earlier.requestDigest.equals(requestDigest)) {
      throw new HttpProblem(
        'delivery_key_reused',
        `The delivery key "${request.deliveryKey}" was used for a different dispatch; use a new key for a new run.`,
      );
    }
    return { dispatched: earlier.dispatched, replayed: true };
  };
  // Read with the key check: the earlier dispatch with this key, if any, and the trigger.
  const { earlier, found } = RunRepository.lookupOf(call.prefetched);
  if (earlier !== undefined) return replay(earlier);

  if (found === 'project_not_found')
    throw new HttpProblem('project_not_found', `The organization has no active project "${request.projectSlug}".`);
  if (found === 'trigger_not_found') {
    throw triggerNotFound(
      request,
      didYouMean(request.trigger, await runs.manualTriggerNames(organizationId, request.projectSlug)),
    );
  }
  const { plan, inputs } = prepareRun(found.trigger, found.environments, found.revisionId, request);
  const { trigger } = found;
  const first = plan[0] as PlannedStep;
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
    apiKeyId,
  });
  // Revoked since the key check: nothing started, and the key's 401 (ahead of every other refusal of the write).
  if (result.outcome === 'key_revoked') throw unauthorized();
  if (result.outcome === 'dispatched') {
    const { daemonId, receiptId } = result;
    call.wake(daemonId);
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
    return { dispatched, replayed: false, hint: hintOf(found, triggerId) };
  }
  if (result.outcome !== 'taken') {
    throw new HttpProblem(
      'daemon_offline',
      `The daemon "${first.daemon}" that runs the first step is ${result.outcome === 'not_enrolled' ? 'not enrolled' : 'offline'}.`,
    );
  }
  // A concurrent dispatch with the same key inserted first: answer as its replay.
  const concurrent = await runs.delivery(organizationId, request.deliveryKey);
  if (concurrent === undefined) throw new Error('a delivery key conflicted but its run is not there');
  return replay(concurrent);
}

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

/** `hint`: the compiler's "; did you mean …?", if any. */
const triggerNotFound = (request: DispatchRequest, hint = '') =>
  new HttpProblem(
    'trigger_not_found',
    `Neither the active configuration of "${request.projectSlug}" nor the organization's triggers have a manual.run trigger "${request.trigger}"${hint || '.'}`,
  );

/**
 * The refusals that depend on the trigger alone, in their order (a manual.run trigger, enabled,
 * the expected version `revisionId`, the actor, the input), and then the run's plan: the same for
 * as long as the revision is the active one. Throws the refusal as a problem.
 */
export function prepareRun(
  trigger: CompiledTrigger,
  environments: CompiledEnvironment[],
  revisionId: string,
  request: DispatchRequest,
): { plan: [PlannedStep, ...PlannedStep[]]; inputs: Record<string, string> } {
  const event = trigger.events.find((candidate) => candidate.kind === 'manual.run');
  if (event === undefined) throw triggerNotFound(request);
  if (!trigger.enabled) throw new HttpProblem('trigger_disabled', `The trigger "${trigger.name}" is disabled.`);
  if (request.expectedVersionId !== undefined && request.expectedVersionId.toLowerCase() !== revisionId) {
    throw new HttpProblem(
      'version_not_current',
      `The revision ${request.expectedVersionId} is no longer active; ${revisionId} is.`,
      {
        extensions: { activeVersionId: revisionId },
      },
    );
  }
  if (!trigger.allowlist.includes(request.actor)) {
    throw new HttpProblem('actor_forbidden', `"${request.actor}" is not in the trigger's filters.from_users.`);
  }
  const parsed = parseManualInput(request.input, event.inputs);
  if (!parsed.ok)
    throw new HttpProblem('invalid_request', "The input does not fill the trigger's inputs; see issues.", {
      issues: parsed.issues,
    });
  const plan = planSteps(trigger, environments, { prompt: parsed.prompt, inputs: parsed.inputs });
  if (plan[0] === undefined) throw new HttpProblem('trigger_not_found', `The trigger "${trigger.name}" has no steps.`);
  return { plan: plan as [PlannedStep, ...PlannedStep[]], inputs: parsed.inputs };
}
