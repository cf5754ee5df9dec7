// Reads an assignment as GET /api/v1/daemon/assignments/next delivers it (the contract's
// `Assignment`, DECISIONS.md, Daemons).
import type { Assignment } from '@hub/schemas';

/**
 * Checks what the hub sent before acting on it: the fields the daemon uses, with the types the
 * contract gives them. A wrong field throws an Error naming it, with the execution id when there is
 * one, so the daemon can still report that execution as failed. Fields the daemon does not use are
 * left unchecked, so a hub that adds one does not fail every execution.
 */
export function readAssignment(value: unknown): Assignment {
  const fields = object(value, 'assignment');
  const executionId = text(fields.executionId, 'executionId');
  try {
    const agent = object(fields.agent, 'agent');
    const inputs = object(fields.inputs ?? {}, 'inputs');
    for (const [name, input] of Object.entries(inputs)) text(input, `inputs.${name}`);
    return {
      executionId,
      triggerRunId: text(fields.triggerRunId, 'triggerRunId'),
      stepId: text(fields.stepId, 'stepId'),
      cwd: text(fields.cwd, 'cwd'),
      agent: {
        provider: text(agent.provider, 'agent.provider'),
        ...optional('mode', agent.mode, (mode) => text(mode, 'agent.mode')),
        ...optional('model', agent.model, (model) => text(model, 'agent.model')),
      },
      prompt: text(fields.prompt, 'prompt'),
      inputs: inputs as Assignment['inputs'],
      actor: text(fields.actor, 'actor'),
      maxRuntimeMs: milliseconds(fields.maxRuntimeMs, 'maxRuntimeMs'),
      // null: no idle limit.
      idleTimeoutMs: fields.idleTimeoutMs === null ? null : milliseconds(fields.idleTimeoutMs, 'idleTimeoutMs'),
    };
  } catch (error) {
    throw new MalformedAssignment(executionId, (error as Error).message);
  }
}

/** An assignment with a readable execution id and some other field wrong. */
export class MalformedAssignment extends Error {
  constructor(
    readonly executionId: string,
    message: string,
  ) {
    super(message);
  }
}

function object(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${name} is not an object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new Error(`${name} is not a string`);
  return value;
}

function milliseconds(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw new Error(`${name} is not a positive whole number of milliseconds`);
  return value as number;
}

/** `{ [key]: read(value) }`, or nothing when the hub sent null or nothing. */
function optional<K extends string, T>(key: K, value: unknown, read: (value: unknown) => T): { [P in K]?: T } {
  return value === undefined || value === null ? {} : ({ [key]: read(value) } as { [P in K]?: T });
}
