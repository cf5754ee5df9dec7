import { renderPrompt, type CompiledEnvironment, type CompiledTrigger } from '@hub/compiler';
import type { Assignment, PlannedStep } from './model.js';

/** Each step with its daemon and cwd, its prompt rendered with the inputs, the prompt and the event (if any). */
export function planSteps(
  trigger: CompiledTrigger,
  environments: CompiledEnvironment[],
  values: { prompt: string; inputs: Record<string, string>; event?: Record<string, string> },
): PlannedStep[] {
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

/** What the step's daemon receives for its execution. */
export function assignmentOf(
  step: PlannedStep,
  run: { executionId: string; triggerRunId: string; inputs: Record<string, string>; actor: string },
): Assignment {
  return {
    executionId: run.executionId,
    triggerRunId: run.triggerRunId,
    stepId: step.id,
    cwd: step.cwd,
    agent: step.agent,
    prompt: step.prompt,
    inputs: run.inputs,
    actor: run.actor,
    maxRuntimeMs: step.maxRuntimeMs,
    idleTimeoutMs: step.idleTimeoutMs,
  };
}
