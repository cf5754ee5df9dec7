// A schedule in the editor: hover on a cron says what it means (describeCron) and when it fires
// next, in its zone and in UTC; a timezone's value completes to the zone names the runtime knows.
import { checkZone, describeCron, nextFireTimes, timeZoneNames } from '@hub/compiler';
import type { Hover, Position } from 'vscode-languageserver';
import { fireTime } from '../../formatters/schedules.js';
import { ancestors, lineNodes, pathOf } from './lines.js';
import type { FeatureContext } from './types.js';

/** How many fire times a hover lists. */
const SHOWN = 3;

/** A `cron:` or `timezone:` key and its value on a line: block (`- cron: …`) or flow (`{ cron: …, timezone: … }`). */
const valueOf = (key: string) =>
  new RegExp(
    `(?:^|[\\s{,])${key}:[ \\t]+("(?:[^"\\\\]|\\\\.)*"|'(?:[^']|'')*'|[^\\s,}#'"][^,}#]*?)(?=[ \\t]*(?:[,}]|#|$))`,
  );

function unquote(written: string): string {
  if (/^".*"$/.test(written)) return written.slice(1, -1).replace(/\\(.)/g, '$1');
  if (/^'.*'$/.test(written)) return written.slice(1, -1).replace(/''/g, "'");
  return written;
}

/**
 * The hover of a schedule entry's cron under the cursor: null when the cursor is not on one, or
 * the cron is not valid (its diagnostic says why).
 */
export function cronHover(context: FeatureContext, lines: readonly string[], position: Position): Hover | null {
  const line = lines[position.line] ?? '';
  const match = valueOf('cron').exec(line);
  if (match === null) return null;
  const written = match[1] as string;
  const from = match.index + match[0].length - written.length;
  if (position.character < from || position.character > from + written.length) return null;
  const nodes = lineNodes(line);
  const col = nodes.find((node) => node.kind === 'key')?.col ?? line.indexOf('{');
  const path = pathOf(
    ancestors(
      lines,
      position.line,
      col,
      nodes.filter((node) => node.col < col),
    ),
  );
  if (!path.includes('schedule')) return null;
  const cron = unquote(written);
  const words = describeCron(cron);
  if (words === '') return null;
  const zone = timezoneOf(lines, position.line, col) ?? 'UTC';
  // In code: a cron's asterisks would be read as emphasis.
  const parts = [`\`${cron}\`: ${words}, in ${zone}.`];
  if (!checkZone(zone).ok) parts.push(`The timezone ${zone} is not a zone this runtime knows: no fire times.`);
  else if (context.now !== undefined) {
    const next = nextFireTimes(cron, zone, context.now, SHOWN);
    parts.push(
      next.length === 0
        ? 'It does not fire again.'
        : `Next:\n${next.map((at) => `- ${fireTime(at, zone)}`).join('\n')}`,
    );
  }
  return {
    contents: { kind: 'markdown', value: parts.join('\n\n') },
    range: {
      start: { line: position.line, character: from },
      end: { line: position.line, character: from + written.length },
    },
  };
}

/**
 * The entry's timezone: on the line itself (a flow mapping), or a key of the same block mapping
 * (keys at column `col`), above the cron up to the entry's `- `, or below it.
 */
function timezoneOf(lines: readonly string[], row: number, col: number): string | undefined {
  const inline = valueOf('timezone').exec(lines[row] ?? '');
  if (inline !== null) return unquote(inline[1] as string);
  const own = (r: number) => {
    const node = lineNodes(lines[r] as string).find((candidate) => candidate.col === col);
    return node?.kind === 'key' && node.key === 'timezone'
      ? unquote(node.value.replace(/\s+#.*$/, '').trim())
      : undefined;
  };
  const starts = (r: number) => lineNodes(lines[r] as string)[0];
  if (!lineNodes(lines[row] ?? '').some((node) => node.kind === 'item')) {
    for (let r = row - 1; r >= 0; r--) {
      const first = starts(r);
      if (first === undefined) continue;
      const found = own(r);
      if (found !== undefined) return found;
      if (first.col < col) break;
    }
  }
  for (let r = row + 1; r < lines.length; r++) {
    const first = starts(r);
    if (first === undefined) continue;
    if (first.col < col) break;
    const found = own(r);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Zone names for a timezone's value: those holding what is typed (any case), UTC first. */
export function zoneNames(prefix: string): string[] {
  const typed = prefix.toLowerCase();
  return timeZoneNames().filter((name) => name.toLowerCase().includes(typed));
}
