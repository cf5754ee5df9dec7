/** A time for people: `2026-05-01 14:03 UTC`, the same on every machine. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
