const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/**
 * Milliseconds of a duration string (DECISIONS.md: `90m`, `1h30m`); undefined when the text is
 * not a duration above zero, Infinity when it is too long to be exact in milliseconds.
 */
export function parseDuration(text: unknown): number | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  // Rules and the model ask for the same few durations many times over.
  if (cache.has(text)) return cache.get(text);
  const ms = compute(text);
  if (cache.size >= 1024) cache.clear();
  cache.set(text, ms);
  return ms;
}

const cache = new Map<string, number | undefined>();

function compute(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const [d, h, m, s] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [
    number,
    number,
    number,
    number,
  ];
  const ms = (((d * 24 + h) * 60 + m) * 60 + s) * 1000;
  if (ms === 0) return undefined;
  return Number.isSafeInteger(ms) ? ms : Infinity;
}
