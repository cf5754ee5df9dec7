import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

describe('environmentsUsed', () => {
  it('warns about an environment no step runs in, without failing', () => {
    const yaml = configurationWith().replace(
      'triggers:',
      '  - name: spare\n    kind: daemon\n    daemon: other\n    cwd: /x\ntriggers:',
    );
    expect(found(yaml)).toEqual([]);
    expect(found(yaml, [], true)).toEqual([['environment.unused', '/environments/1/name']]);
  });
});
