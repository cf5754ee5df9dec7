import { describe, expect, it } from 'vitest';
import { configurationWith, found, foundInBundle, legacyHub, legacyWorkflow } from '../support/documents.js';

describe('uniqueTriggerNames', () => {
  it('reports the second of two triggers with one name', () => {
    const yaml = configurationWith();
    const trigger = yaml.slice(yaml.indexOf('  - name: fix-tests'));
    expect(found(yaml + trigger)).toEqual([['trigger.duplicate_name', '/triggers/1/name']]);
  });

  it('compares workflow names across the files of a bundle', () => {
    expect(foundInBundle(legacyHub, { a: legacyWorkflow('review'), b: legacyWorkflow('review') })).toEqual([
      ['trigger.duplicate_name', '/name', '.hub/workflows/b.yml'],
    ]);
  });
});
