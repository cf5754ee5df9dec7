import { describe, expect, it } from 'vitest';
import { foundInBundle, legacyHub, legacyWorkflow } from '../support/documents.js';

describe('stepAgentExists', () => {
  it('accepts a named agent of the hub file', () => {
    expect(foundInBundle(legacyHub, { review: legacyWorkflow('review') })).toEqual([]);
  });

  it('reports a name the hub file does not define', () => {
    const workflow = legacyWorkflow('review').replace('agent: reviewer', 'agent: reviwer');
    expect(foundInBundle(legacyHub, { review: workflow })).toEqual([
      ['step.unknown_agent', '/steps/0/agent', '.hub/workflows/review.yml'],
    ]);
  });
});
