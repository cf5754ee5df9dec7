import { describe, expect, it } from 'vitest';
import { afterExecution, FINAL_STATUSES, isFinal, judgeReport } from '../src/runs/states.js';

// The execution state machine (DECISIONS.md, Dispatch), without a database: what a report does
// to an execution, and what follows an execution's end.

describe('isFinal', () => {
  it.each([
    ['spawning', false],
    ['running', false],
    ['succeeded', true],
    ['failed', true],
    ['timed_out', true],
    ['cancelled', true],
    ['lost', true],
  ] as const)('%s → %s', (status, final) => {
    expect(isFinal(status)).toBe(final);
    expect(FINAL_STATUSES.includes(status)).toBe(final);
  });
});

describe('judgeReport', () => {
  it.each([
    // Repeating the current status is accepted, even once finished.
    ['spawning', 'running', 'start'],
    ['running', 'running', 'same'],
    ['succeeded', 'succeeded', 'same'],
    ['cancelled', 'cancelled', 'same'],
    // A final status ends a spawning or running execution.
    ['spawning', 'succeeded', 'end'],
    ['spawning', 'cancelled', 'end'],
    ['running', 'succeeded', 'end'],
    ['running', 'failed', 'end'],
    ['running', 'timed_out', 'end'],
    ['running', 'cancelled', 'end'],
    // A finished execution no longer changes; running only follows spawning.
    ['succeeded', 'running', 'refused'],
    ['failed', 'succeeded', 'refused'],
    ['timed_out', 'failed', 'refused'],
    ['lost', 'running', 'refused'],
    ['lost', 'succeeded', 'refused'],
  ] as const)('%s, reported %s → %s', (current, reported, verdict) => {
    expect(judgeReport(current, reported)).toBe(verdict);
  });
});

describe('afterExecution', () => {
  const plan = ['first', 'second', 'third'];
  const running = { status: 'running', plan };

  it.each([
    ['a succeeded first step', running, 0, 'succeeded', { kind: 'next', stepIndex: 1, step: 'second' }],
    ['a succeeded middle step', running, 1, 'succeeded', { kind: 'next', stepIndex: 2, step: 'third' }],
    ['a succeeded last step', running, 2, 'succeeded', { kind: 'end', status: 'succeeded' }],
    ['a failed step', running, 0, 'failed', { kind: 'end', status: 'failed' }],
    ['a failed last step', running, 2, 'failed', { kind: 'end', status: 'failed' }],
    ['a timed-out step', running, 1, 'timed_out', { kind: 'end', status: 'timed_out' }],
    ['a cancelled step', running, 0, 'cancelled', { kind: 'end', status: 'cancelled' }],
    ['a run that already ended', { status: 'timed_out', plan }, 0, 'succeeded', { kind: 'nothing' }],
    ['a run that already failed', { status: 'failed', plan }, 0, 'failed', { kind: 'nothing' }],
    ['a run that is gone', undefined, 0, 'succeeded', { kind: 'nothing' }],
  ] as const)('%s', (_case, run, stepIndex, ended, after) => {
    expect(afterExecution(run, stepIndex, ended)).toEqual(after);
  });
});
