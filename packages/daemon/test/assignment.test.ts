// readAssignment: what the daemon accepts from the hub, by the contract's `Assignment`.
import type { Assignment } from '@hub/schemas';
import { describe, expect, it } from 'vitest';
import { MalformedAssignment, readAssignment } from '../src/assignment.js';

const valid: Assignment = {
  executionId: '0b5f7c1e-2d6a-4f4e-9a43-7f2d8c1b9e10',
  triggerRunId: '6a1c0d2e-8b7f-4c3a-9e5d-1f2a3b4c5d6e',
  stepId: 'review',
  cwd: '~/src/app',
  agent: { provider: 'claude', mode: 'plan' },
  prompt: 'Review it.',
  inputs: { branch: 'main' },
  actor: 'alice',
  maxRuntimeMs: 3_600_000,
  idleTimeoutMs: null,
};

describe('readAssignment', () => {
  it.each([
    ['no idle limit', {}],
    ['an idle limit', { idleTimeoutMs: 60_000 }],
    ['a model and no mode', { agent: { provider: 'codex', model: 'o3' } }],
  ])('accepts an assignment with %s', (_, overrides) => {
    expect(readAssignment({ ...valid, ...overrides })).toEqual({ ...valid, ...overrides });
  });

  it.each([
    ['maxRuntimeMs', undefined, 'maxRuntimeMs is not a positive whole number of milliseconds'],
    ['maxRuntimeMs', null, 'maxRuntimeMs is not a positive whole number of milliseconds'],
    ['maxRuntimeMs', 0, 'maxRuntimeMs is not a positive whole number of milliseconds'],
    ['maxRuntimeMs', 1.5, 'maxRuntimeMs is not a positive whole number of milliseconds'],
    ['idleTimeoutMs', undefined, 'idleTimeoutMs is not a positive whole number of milliseconds'],
    ['idleTimeoutMs', '60000', 'idleTimeoutMs is not a positive whole number of milliseconds'],
    ['cwd', 42, 'cwd is not a string'],
    ['agent', 'claude', 'agent is not an object'],
    ['inputs', { branch: 1 }, 'inputs.branch is not a string'],
  ])('refuses %s = %j, naming the execution', (field, value, message) => {
    let error: unknown;
    try {
      readAssignment({ ...valid, [field]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(MalformedAssignment);
    expect(error).toMatchObject({ executionId: valid.executionId, message });
  });

  it('refuses an assignment without a readable execution id as a plain error', () => {
    expect(() => readAssignment({ ...valid, executionId: 7 })).toThrow('executionId is not a string');
    expect(() => readAssignment({ ...valid, executionId: 7 })).not.toThrow(MalformedAssignment);
  });
});
