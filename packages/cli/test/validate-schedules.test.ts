// `hub validate` prints each schedule entry of a valid document with its next fire time, in its
// zone and in UTC (DECISIONS.md, "Schedules"); the CLI runs as a child process with the real
// clock, so the expected times are computed here with nextFireTimes from just before and just
// after it ran.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nextFireTimes } from '@hub/compiler';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireTime } from '../src/formatters/schedules.js';
import { hubIn, writeTree } from './support/repo.js';

const trigger = (name: string, schedule: string) => `name: ${name}
on:
  schedule:
${schedule}run:
  target: { daemon: build-box, cwd: /srv/repo }
  agent:
    provider: codex
    prompt: "Triage. {{ prompt }}"
    max_runtime: 30m
`;

/** A project's configuration: where schedules go (an organization trigger's is refused). */
const CONFIGURATION = `environments:
  - { name: box, kind: daemon, daemon: build-box, cwd: /srv/repo }
triggers:
  - name: nightly
    on:
      schedule:
        - cron: "30 2 * * 1-5"
          timezone: Europe/Berlin
        - { cron: "0 3 * * *", timezone: Asia/Kolkata }
        - cron: "@hourly"
    max_runtime: 30m
    steps:
      - { id: triage, environment: box, agent: { provider: codex }, prompt: [ { text: "Triage." } ] }
`;

const ENTRIES = [
  { trigger: 'nightly', index: 0, cron: '30 2 * * 1-5', timezone: 'Europe/Berlin', line: 7 },
  { trigger: 'nightly', index: 1, cron: '0 3 * * *', timezone: 'Asia/Kolkata', line: 9 },
  { trigger: 'nightly', index: 2, cron: '@hourly', timezone: 'UTC', line: 10 },
];

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-validate-schedules-'));
  writeTree(dir, {
    '.hub/config.yml': CONFIGURATION,
    '.hub/triggers/broken.yml': trigger('broken', '    - cron: "0 24 * * *"\n'),
  });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `hub validate args`, with the instants just before and just after. */
async function validate(args: string[]) {
  const before = new Date();
  const done = await hubIn(dir, ['validate', ...args]);
  return { ...done, before, after: new Date() };
}

/** The next fire time from either end of the run (a tick may fall while it runs). */
const nextFrom = (cron: string, zone: string, ...instants: Date[]) =>
  instants.map((at) => nextFireTimes(cron, zone, at, 1)[0] as Date);

describe('hub validate, schedules', () => {
  it('prints each entry of a valid document with its next fire time, in its zone and in UTC', async () => {
    const { code, stdout, before, after } = await validate([]);
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^\.hub\/triggers\/broken\.yml:3:3: schedule\.organization_trigger /);
    expect(lines[1]).toMatch(
      /^\.hub\/triggers\/broken\.yml:4:16: schedule\.cron The hour field: 24 is outside 0-23\.$/,
    );
    const shown = lines.filter((line) => line.startsWith('schedule '));
    // Only the valid document's schedules: the broken one's cron has no next time.
    expect(shown).toHaveLength(ENTRIES.length);
    ENTRIES.forEach((entry, i) => {
      const expected = nextFrom(entry.cron, entry.timezone, before, after).map(
        (next) =>
          `schedule ${entry.trigger}[${entry.index}] ${JSON.stringify(entry.cron)} ${entry.timezone}: next ${fireTime(next, entry.timezone)}`,
      );
      expect(expected).toContain(shown[i]);
    });
    expect(lines.at(-2)).toBe('Checked 2 files: 2 issues in 1 of them.');
  });

  it('writes times people read: the zone by its name, UTC beside it', async () => {
    const { stdout } = await validate(['.hub/config.yml']);
    const [berlin, kolkata, utc] = stdout.split('\n');
    expect(berlin).toMatch(
      /^schedule nightly\[0\] "30 2 \* \* 1-5" Europe\/Berlin: next \d{4}-\d\d-\d\d 02:30 (CET \(01:30|CEST \(00:30) UTC\)$/,
    );
    // 03:00 in India is 21:30 UTC the day before: the UTC date is written too.
    expect(kolkata).toMatch(
      /^schedule nightly\[1\] "0 3 \* \* \*" Asia\/Kolkata: next (\d{4}-\d\d-\d\d) 03:00 GMT\+5:30 \(\d{4}-\d\d-\d\d 21:30 UTC\)$/,
    );
    expect(utc).toMatch(/^schedule nightly\[2\] "@hourly" UTC: next \d{4}-\d\d-\d\d \d\d:00 UTC$/);
  });

  it('--json adds schedules, each with its next fire time as an ISO 8601 instant', async () => {
    const { code, stdout, before, after } = await validate(['--json', '.hub/config.yml']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { schedules: Record<string, unknown>[]; issues: unknown[] };
    expect(report.issues).toEqual([]);
    expect(report.schedules).toHaveLength(ENTRIES.length);
    ENTRIES.forEach(({ trigger: name, index, cron, timezone, line }, i) => {
      const next = nextFrom(cron, timezone, before, after).map((at) => at.toISOString());
      expect(report.schedules[i]).toEqual({
        file: '.hub/config.yml',
        line,
        column: 11,
        trigger: name,
        index,
        cron,
        timezone,
        next: expect.toBeOneOf(next),
      });
    });
  });
});

describe('fireTime', () => {
  it.each([
    ['2026-11-30T01:30:00Z', 'Europe/Berlin', '2026-11-30 02:30 CET (01:30 UTC)'],
    ['2026-07-01T00:30:00Z', 'Europe/Berlin', '2026-07-01 02:30 CEST (00:30 UTC)'],
    ['2026-07-01T06:30:00Z', 'America/New_York', '2026-07-01 02:30 EDT (06:30 UTC)'],
    ['2026-11-29T21:30:00Z', 'Asia/Kolkata', '2026-11-30 03:00 GMT+5:30 (2026-11-29 21:30 UTC)'],
    ['2026-07-01T00:30:00Z', 'Europe/London', '2026-07-01 01:30 BST (00:30 UTC)'],
    ['2026-11-30T01:30:00Z', 'Europe/London', '2026-11-30 01:30 GMT (01:30 UTC)'],
    ['2026-11-30T02:30:00Z', 'UTC', '2026-11-30 02:30 UTC'],
  ])('%s in %s is %s', (instant, zone, expected) => {
    expect(fireTime(new Date(instant), zone)).toBe(expected);
  });
});
