// What the hub writes on GitHub (DECISIONS.md, GitHub, "Reporting back"): Markdown, short, with a
// link to the run's page. Pure functions of what the caller read.
import type { CompiledTrigger } from '@hub/compiler';

/** The last lines of output the final comment shows. */
export const TAIL_LINES = 20;

const OUTCOMES: Record<string, { word: string; conclusion: string }> = {
  succeeded: { word: 'succeeded', conclusion: 'success' },
  failed: { word: 'failed', conclusion: 'failure' },
  timed_out: { word: 'timed out', conclusion: 'timed_out' },
  cancelled: { word: 'was cancelled', conclusion: 'cancelled' },
};

/** A finished run's check-run conclusion: its real outcome, never a green check for failed work. */
export const conclusionOf = (status: string) => OUTCOMES[status]?.conclusion ?? 'failure';

export interface RunFacts {
  triggerName: string;
  daemon: string;
  runUrl: string;
  status: string;
  message: string | null;
  durationMs?: number;
  tail?: string;
}

/** The comment made when the run starts. */
export function startedComment(run: RunFacts): string {
  return `⏳ Running \`${run.triggerName}\` on the daemon \`${run.daemon}\`. [Follow the run](${run.runUrl}).`;
}

/** The same comment, edited when the run ends: outcome, duration, the output's last lines. */
export function endedComment(run: RunFacts): string {
  const outcome = OUTCOMES[run.status] ?? { word: run.status, conclusion: 'failure' };
  const icon = run.status === 'succeeded' ? '✅' : run.status === 'cancelled' ? '⚪' : '❌';
  const duration = run.durationMs === undefined ? '' : ` after ${formatDuration(run.durationMs)}`;
  const lines = [`${icon} \`${run.triggerName}\` ${outcome.word}${duration} on the daemon \`${run.daemon}\`.`];
  if (run.message !== null && run.message !== '') lines.push('', `> ${run.message.replace(/\n/g, '\n> ')}`);
  const tail = lastLines(run.tail ?? '', TAIL_LINES);
  if (tail !== '') {
    const fence = '`'.repeat(Math.max(3, longestRun(tail, '`') + 1));
    lines.push(
      '',
      '<details><summary>The last lines of its output</summary>',
      '',
      fence,
      tail,
      fence,
      '',
      '</details>',
    );
  }
  lines.push('', `[The run](${run.runUrl})`);
  return lines.join('\n');
}

/** The check run's summary: the comment's first line, with the run's link. */
export function checkSummary(run: RunFacts): string {
  return endedComment({ ...run, tail: '' });
}

export function unknownTriggerReply(
  actor: string,
  name: string,
  names: string[],
  suggestion: string | undefined,
  slug: string,
): string {
  const asked = name === '' ? 'No trigger was named' : `\`${name}\` is not a trigger of this repository's project`;
  const mean = suggestion === undefined ? '' : ` Did you mean \`${suggestion}\`?`;
  const list =
    names.length === 0
      ? "The project's active configuration has no `github.mention` triggers."
      : `Its mention triggers: ${names.map((candidate) => `\`${candidate}\``).join(', ')}.`;
  return `@${actor} ${asked}.${mean} ${list} Mention one as \`@${slug} <trigger> [inputs] [text]\`.`;
}

export function refusedActorReply(actor: string, trigger: CompiledTrigger, slug: string): string {
  return `@${actor} you are not allowed to run \`${trigger.name}\`: its \`filters.from_users\` does not list your GitHub login, so nothing runs. Ask someone who may install the configuration to add you. (@${slug})`;
}

/** Output as text: escapes dropped, the last `count` lines. */
export function lastLines(text: string, count: number): string {
  const plain = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\r(?!\n)/g, '\n');
  return plain.replace(/\s+$/, '').split(/\r?\n/).slice(-count).join('\n');
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  for (const match of text.matchAll(new RegExp(`${char === '`' ? '`' : char}+`, 'g')))
    longest = Math.max(longest, match[0].length);
  return longest;
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
