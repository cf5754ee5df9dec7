// A schedule in the editor (src/lsp/features/schedule.ts): hover on a cron shows its meaning and
// its next three fire times in its zone and in UTC; a timezone's value completes to zone names.
import { describeCron, nextFireTimes } from '@hub/compiler';
import type { MarkupContent, Position } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import { fireTime } from '../src/formatters/schedules.js';
import { complete, hover, type DocumentKind, type FeatureContext } from '../src/lsp/features/index.js';

const MARK = '‸';
const NOW = new Date('2026-11-27T12:00:00Z');

function marked(source: string): { text: string; position: Position } {
  const at = source.indexOf(MARK);
  const before = source.slice(0, at);
  const line = before.split('\n').length - 1;
  return {
    text: before + source.slice(at + 1),
    position: { line, character: before.length - before.lastIndexOf('\n') - 1 },
  };
}

function context(kind: DocumentKind, text: string, now: Date | null = NOW): FeatureContext {
  return { kind, text, partials: [], readPartial: () => undefined, ...(now === null ? {} : { now }) };
}

function hoverOf(kind: DocumentKind, source: string, now?: Date | null) {
  const { text, position } = marked(source);
  return hover(context(kind, text, now), position);
}

const hoverText = (kind: DocumentKind, source: string, now?: Date | null) =>
  (hoverOf(kind, source, now)?.contents as MarkupContent | undefined)?.value;

const TRIGGER = (schedule: string) => `name: nightly
on:
  schedule:
${schedule}run:
  target: { daemon: build-box, cwd: /srv/repo }
  agent: { provider: codex, prompt: "x", max_runtime: 30m }
`;

/** The hover text expected for a cron in a zone, from describeCron and nextFireTimes. */
function expected(cron: string, zone: string): string {
  const next = nextFireTimes(cron, zone, NOW, 3).map((at) => `- ${fireTime(at, zone)}`);
  return `\`${cron}\`: ${describeCron(cron)}, in ${zone}.\n\nNext:\n${next.join('\n')}`;
}

describe('hover on a cron', () => {
  it('shows its meaning and the next three fire times, in its zone and UTC', () => {
    const source = TRIGGER('    - cron: "30 2 * * 1‸-5"\n      timezone: Europe/Berlin\n');
    expect(hoverText('trigger', source)).toBe(expected('30 2 * * 1-5', 'Europe/Berlin'));
    expect(hoverText('trigger', source)).toContain('at 02:30 on Monday to Friday');
    expect(hoverText('trigger', source)).toContain('- 2026-11-30 02:30 CET (01:30 UTC)');
    expect(hoverOf('trigger', source)?.range).toEqual({
      start: { line: 3, character: 12 },
      end: { line: 3, character: 26 },
    });
  });

  it.each([
    ['a zone above the cron', '    - timezone: Asia/Kolkata\n      cron: 0 3 * * ‸*\n', '0 3 * * *', 'Asia/Kolkata'],
    [
      'a flow mapping',
      '    - { cron: "*/15 9-17 * * ‸mon-fri", timezone: America/New_York }\n',
      '*/15 9-17 * * mon-fri',
      'America/New_York',
    ],
    [
      'no zone: UTC',
      '    - cron: ‸"@daily"\n    - cron: "0 1 * * *"\n      timezone: Europe/Berlin\n',
      '@daily',
      'UTC',
    ],
    [
      'a zone in quotes, with a comment',
      "    - cron: '0 0 1 ‸* *' \n      timezone: 'Europe/London' # HQ\n",
      '0 0 1 * *',
      'Europe/London',
    ],
  ])('finds the entry’s zone: %s', (_case, schedule, cron, zone) => {
    expect(hoverText('trigger', TRIGGER(schedule))).toBe(expected(cron, zone));
  });

  it('works in a configuration and a legacy workflow too', () => {
    const configuration = `triggers:\n  - name: a\n    on:\n      schedule:\n        - cron: "0 ‸2 * * *"\n`;
    expect(hoverText('configuration', configuration)).toBe(expected('0 2 * * *', 'UTC'));
    const workflow = `name: a\non:\n  schedule:\n    - cron: "0 ‸2 * * *"\n      timezone: Asia/Kolkata\n`;
    expect(hoverText('legacy-workflow', workflow)).toBe(expected('0 2 * * *', 'Asia/Kolkata'));
  });

  it('says when the zone is not known, and lists no times', () => {
    const text = hoverText('trigger', TRIGGER('    - cron: "0 ‸2 * * *"\n      timezone: Europe/Berln\n'));
    expect(text).toBe(
      '`0 2 * * *`: at 02:00 every day, in Europe/Berln.\n\nThe timezone Europe/Berln is not a zone this runtime knows: no fire times.',
    );
  });

  it('shows the meaning alone without a clock', () => {
    expect(hoverText('trigger', TRIGGER('    - cron: "0 ‸2 * * *"\n'), null)).toBe(
      '`0 2 * * *`: at 02:00 every day, in UTC.',
    );
  });

  it.each([
    ['an invalid cron (its diagnostic says why)', TRIGGER('    - cron: "0 ‸24 * * *"\n')],
    ['the key rather than the value', TRIGGER('    - cr‸on: "0 2 * * *"\n')],
    ['a cron key outside a schedule', 'name: x\nrun:\n  cron: "0 ‸2 * * *"\n'],
  ])('is no cron hover on %s', (_case, source) => {
    expect(hoverText('trigger', source) ?? '').not.toContain('Next:');
  });
});

describe('completion of a timezone', () => {
  const labels = (source: string) => {
    const { text, position } = marked(source);
    return complete(context('trigger', text), position);
  };

  it('offers the zone names, UTC first', () => {
    const items = labels(TRIGGER('    - cron: "0 2 * * *"\n      timezone: ‸\n'));
    expect(items[0]?.label).toBe('UTC');
    expect(items.map((item) => item.label)).toEqual(expect.arrayContaining(['Europe/Berlin', 'America/New_York']));
    expect(items.length).toBeGreaterThan(300);
  });

  it('narrows to the names holding what is typed, and replaces it', () => {
    const items = labels(TRIGGER('    - cron: "0 2 * * *"\n      timezone: berl‸\n'));
    expect(items.map((item) => item.label)).toEqual(['Europe/Berlin']);
    expect(items[0]?.textEdit).toEqual({
      range: { start: { line: 4, character: 16 }, end: { line: 4, character: 20 } },
      newText: 'Europe/Berlin',
    });
  });

  it('in a flow mapping too', () => {
    const items = labels(TRIGGER('    - { cron: "0 2 * * *", timezone: Europe/Ber‸ }\n'));
    expect(items.map((item) => item.label)).toEqual(['Europe/Berlin']);
  });
});
