import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const withStep = (lines: string, trigger = '2h') =>
  configurationWith({ maxRuntime: trigger }).replace('        agent:', `${lines}        agent:`);

describe('idleTimeoutWithinMaxRuntime', () => {
  it('accepts an idle_timeout up to the step max_runtime', () => {
    expect(found(withStep('        max_runtime: 1h\n        idle_timeout: 60m\n'))).toEqual([]);
  });

  it('reports an idle_timeout longer than the step max_runtime', () => {
    expect(found(withStep('        max_runtime: 1h\n        idle_timeout: 61m\n'))).toEqual([
      ['step.idle_timeout_exceeds_max_runtime', '/triggers/0/steps/0/idle_timeout'],
    ]);
  });

  it("compares with the trigger's max_runtime when the step has none", () => {
    expect(found(withStep('        idle_timeout: 2h\n'))).toEqual([]);
    expect(found(withStep('        idle_timeout: 3h\n'))).toEqual([
      ['step.idle_timeout_exceeds_max_runtime', '/triggers/0/steps/0/idle_timeout'],
    ]);
  });
});
