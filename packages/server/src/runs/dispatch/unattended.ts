import { declaredInputs, parseManualInput, type CompiledConfiguration } from '@hub/compiler';
import { createHash } from 'node:crypto';
import type { Db } from '../../db/connect.js';
import type { RunSource } from './model.js';
import { assignmentOf, planSteps } from './plan.js';
import { RunRepository } from './sql.js';

/** A run that no request asks for (a schedule's tick; GitHub's events next), from an active revision. */
export interface UnattendedRun {
  organizationId: string;
  projectId: string;
  revisionId: string;
  model: CompiledConfiguration;
  triggerName: string;
  source: Exclude<RunSource, 'manual'>;
  /** Unique per organization (DECISIONS.md: `schedule:<entry>:<tick>`): the same event starts one run. */
  deliveryKey: string;
  actor: string;
  /** Parsed like a dispatch's `input`, against the trigger's declared inputs. */
  input: string;
  /** The prompt as it is, when the event gives one rather than input text (a GitHub label: the title and body); `input` then holds only inputs. */
  prompt?: string;
  /** The event as the run views show it. */
  event: Record<string, string>;
  /** The event as templates read it: `{{ event.<name> }}`. */
  templateEvent: Record<string, string>;
  /** A's triggerId of (project, trigger name), when the caller knows it (it never changes). */
  triggerId?: string;
}

export type UnattendedOutcome =
  | { outcome: 'started'; triggerRunId: string; daemonId: string; triggerId: string }
  /** Started before, by this event: on another instance, or before a crash. */
  | { outcome: 'already' }
  /** Recorded as failed at once, with `message`: the daemon offline, the input no longer valid. */
  | { outcome: 'failed'; triggerRunId: string; message: string }
  /** The trigger is gone from the revision or disabled: nothing to run. */
  | { outcome: 'no_trigger' };

/**
 * The dispatch of section "Dispatch" for a run no one dispatches, in the caller's transaction
 * `tx`: the trigger of the revision, its input parsed, its plan, the first step's daemon online,
 * the delivery key unused, all in `RunRepository.dispatch`'s one statement. Where a request would
 * be refused, the run is recorded as failed with the reason, so that a tick whose daemon was
 * offline shows as a failed run rather than as nothing. The caller wakes `daemonId` after commit.
 */
export async function startUnattendedRun(
  tx: Db,
  timing: { offlineAfterMs: number },
  run: UnattendedRun,
): Promise<UnattendedOutcome> {
  const trigger = run.model.triggers.find((candidate) => candidate.name === run.triggerName);
  if (trigger === undefined || !trigger.enabled) return { outcome: 'no_trigger' };
  const runs = new RunRepository(tx, timing);
  const triggerId = run.triggerId ?? (await runs.configuredTrigger(run.projectId, trigger.name));
  const parsed = parseManualInput(run.input, declaredInputs(trigger));
  const inputs = parsed.ok ? parsed.inputs : {};
  const plan = planSteps(trigger, run.model.environments, {
    prompt: run.prompt ?? (parsed.ok ? parsed.prompt : ''),
    inputs,
    event: run.templateEvent,
  });
  const first = plan[0];
  const triggerRunId = crypto.randomUUID();
  const common = {
    triggerRunId,
    organizationId: run.organizationId,
    deliveryKey: run.deliveryKey,
    requestDigest: createHash('sha256')
      .update(JSON.stringify([run.source, run.deliveryKey]))
      .digest(),
    actor: run.actor,
    inputs,
    plan,
    source: run.source,
    event: run.event,
  };
  const from = { projectId: run.projectId, revisionId: run.revisionId, triggerId, trigger };
  const fail = async (message: string): Promise<UnattendedOutcome> =>
    (await runs.recordFailed({ ...common, ...from, message }))
      ? { outcome: 'failed', triggerRunId, message }
      : { outcome: 'already' };
  if (!parsed.ok)
    return fail(
      `The run did not start: its input was refused: ${parsed.issues.map((issue) => issue.message).join(' ')}`,
    );
  if (first === undefined) return fail(`The trigger ${trigger.name} has no steps.`);
  const executionId = crypto.randomUUID();
  const result = await runs.dispatch({
    ...common,
    executionId,
    assignment: assignmentOf(first, { executionId, triggerRunId, inputs, actor: run.actor }),
    found: { ...from, environments: run.model.environments, source: 'configuration' },
    triggerId,
    caller: { kind: 'none' },
  });
  if (result.outcome === 'dispatched')
    return { outcome: 'started', triggerRunId, daemonId: result.daemonId, triggerId };
  if (result.outcome === 'taken') return { outcome: 'already' };
  if (result.outcome === 'key_revoked') throw new Error('a run no one dispatched was refused as revoked');
  return fail(
    result.outcome === 'not_enrolled'
      ? `The run did not start: no daemon named "${first.daemon}" is enrolled in the organization.`
      : `The run did not start: the daemon "${first.daemon}" was offline.`,
  );
}
