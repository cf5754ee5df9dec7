// How runs read for people: durations, the runs table, the lines about steps and runs.
import type { Run } from '@hub/schemas';
import { describe, expect, it, onTestFinished } from 'vitest';
import { duration, EXIT_CODES, runsTable, runStatusLine, stepEnd, stepHeader } from '../src/run-view.js';

const run = (overrides: Partial<Run>): Run => ({
  triggerRunId: '8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b',
  projectSlug: 'app',
  trigger: 'fix-tests',
  actor: 'dev-lead',
  deliveryKey: 'k',
  status: 'succeeded',
  source: 'manual',
  inputs: {},
  createdAt: '2026-01-01T12:00:00.000Z',
  finishedAt: '2026-01-01T12:02:05.900Z',
  cancelRequestedAt: null,
  executions: [],
  ...overrides,
});

describe('duration', () => {
  it.each([
    [0, '<1s'],
    [999, '<1s'],
    [1_000, '1s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [125_000, '2m 5s'],
    [3_600_000, '1h'],
    [3_600_000 + 59_000, '1h'],
    [3_720_000 + 5_000, '1h 2m'],
    [86_400_000 + 3 * 3_600_000 + 60_000, '1d 3h'],
    [-5, '<1s'],
  ])('%d ms is %s', (ms, text) => {
    expect(duration(ms)).toBe(text);
  });
});

describe('runsTable', () => {
  it('puts the columns under the header, the status and how long it took, the last column unpadded', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'UTC';
    onTestFinished(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    const table = runsTable(
      [
        run({
          trigger: 'a-longer-trigger',
          status: 'running',
          finishedAt: null,
          cancelRequestedAt: '2026-01-01T12:00:01.000Z',
        }),
        run({
          triggerRunId: '00000000-0000-4000-8000-000000000000',
          actor: 'ci\u001b[31mbot',
          status: 'timed_out',
          source: 'schedule',
        }),
      ],
      Date.parse('2026-01-01T13:02:00.000Z'),
    );
    expect(table.split('\n')).toEqual([
      'RUN                                   TRIGGER           PROJECT  ACTOR       SOURCE    STATUS      STARTED              TOOK',
      '8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b  a-longer-trigger  app      dev-lead    manual    cancelling  2026-01-01 12:00:00  1h 2m',
      '00000000-0000-4000-8000-000000000000  fix-tests         app      ci [31mbot  schedule  timed_out   2026-01-01 12:00:00  2m 5s',
      '',
    ]);
  });
});

describe('lines about steps and runs', () => {
  it('names the step, its daemon and execution, then how it ended, with the exit code and the message made printable', () => {
    expect(stepHeader({ stepId: 'fix', daemon: 'dev-box', executionId: 'e1' })).toBe(
      '==> step fix on daemon dev-box (execution e1)\n',
    );
    expect(stepEnd('fix', { status: 'failed', exitCode: 3, message: 'sh exited\nwith code 3.' })).toBe(
      '==> step fix failed, exit code 3: sh exited with code 3.\n',
    );
    expect(stepEnd('fix', { status: 'timed_out', exitCode: null, message: null })).toBe('==> step fix timed out\n');
  });

  it.each([
    ['succeeded', 'succeeded.', 0],
    ['failed', 'failed.', 1],
    ['cancelled', 'was cancelled.', 3],
    ['timed_out', 'timed out.', 4],
  ] as const)('a run that %s: "%s", exit code %d', (status, words, code) => {
    expect(runStatusLine(run({ status }))).toBe(`Run 8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b ${words}\n`);
    expect(EXIT_CODES[status]).toBe(code);
  });

  it('says why a run ended without an execution', () => {
    const message = 'The run did not start: the daemon "night-box" was offline.';
    expect(runStatusLine(run({ status: 'failed', message }))).toBe(
      `Run 8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b failed: ${message}\n`,
    );
  });
});
