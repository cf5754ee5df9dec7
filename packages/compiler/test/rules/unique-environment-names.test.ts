import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const twice = configurationWith().replace(
  'triggers:',
  '  - name: laptop\n    kind: daemon\n    daemon: other\n    cwd: /x\ntriggers:',
);

describe('uniqueEnvironmentNames', () => {
  it('accepts distinct names', () => {
    expect(found(configurationWith())).toEqual([]);
  });

  it('reports the second of two environments with one name', () => {
    expect(found(twice)).toEqual([['environment.duplicate_name', '/environments/1/name']]);
  });
});
