import { formatTime } from './format.js';

/** A time for people, with its machine form; a dash (or `none`) when there is none. */
export function Time({ at, none = '—' }: { at: Date | null; none?: string }) {
  if (at === null) return <span class="muted">{none}</span>;
  return <time datetime={at.toISOString()}>{formatTime(at)}</time>;
}
