import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const step = (id: string) => `      - id: ${id}
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: "Go. {{ prompt }}"
`;

describe('uniqueStepIds', () => {
  it('accepts distinct ids', () => {
    expect(found(configurationWith({ steps: step('a') + step('b') }))).toEqual([]);
  });

  it('reports a repeated id within a trigger', () => {
    expect(found(configurationWith({ steps: step('a') + step('b') + step('a') }))).toEqual([
      ['step.duplicate_id', '/triggers/0/steps/2/id'],
    ]);
  });
});
