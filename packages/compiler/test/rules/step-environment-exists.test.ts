import { describe, expect, it } from 'vitest';
import { configurationWith, found, foundInBundle, legacyHub, legacyWorkflow } from '../support/documents.js';

describe('stepEnvironmentExists', () => {
  it('reports a step whose environment is not defined', () => {
    const yaml = configurationWith().replace('environment: laptop', 'environment: laptpo');
    expect(found(yaml)).toEqual([['step.unknown_environment', '/triggers/0/steps/0/environment']]);
  });

  it('looks environments up in the hub file of a bundle', () => {
    const workflow = legacyWorkflow('review').replace('environment: build', 'environment: staging');
    expect(foundInBundle(legacyHub, { review: workflow })).toEqual([
      ['step.unknown_environment', '/steps/0/environment', '.hub/workflows/review.yml'],
    ]);
  });
});
