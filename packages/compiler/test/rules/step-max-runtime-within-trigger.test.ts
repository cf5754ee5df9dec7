import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const withStepRuntime = (step: string, trigger: string) =>
  configurationWith({ maxRuntime: trigger }).replace('        agent:', `        max_runtime: ${step}\n        agent:`);

describe('stepMaxRuntimeWithinTrigger', () => {
  it.each([
    ['1h', '1h'],
    ['59m', '1h'],
    ['3600s', '1h'],
  ])('accepts a step of %s in a trigger of %s', (step, trigger) => {
    expect(found(withStepRuntime(step, trigger))).toEqual([]);
  });

  it('reports a step longer than its trigger', () => {
    expect(found(withStepRuntime('3601s', '1h'))).toEqual([
      ['step.max_runtime_exceeds_trigger', '/triggers/0/steps/0/max_runtime'],
    ]);
  });
});
