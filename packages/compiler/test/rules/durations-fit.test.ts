import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

describe('durationsFit', () => {
  it.each(['1s', '90m', '1h30m', '2d12h', '104249991d'])('accepts %s', (duration) => {
    expect(found(configurationWith({ maxRuntime: duration }))).toEqual([]);
  });

  it('reports a duration too long for exact milliseconds', () => {
    expect(found(configurationWith({ maxRuntime: '104249992d' }))).toEqual([
      ['duration.too_long', '/triggers/0/max_runtime'],
    ]);
    expect(found(configurationWith({ maxRuntime: `${'9'.repeat(30)}s` }))).toEqual([
      ['duration.too_long', '/triggers/0/max_runtime'],
    ]);
  });
});
