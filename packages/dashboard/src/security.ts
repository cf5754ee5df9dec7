/** Every dashboard page loads only its own stylesheet and script, streams only from itself (a run's live output), and posts only to itself. */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of every HTML answer: the policy, and no copy kept anywhere (a secret may be on it). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_POLICY,
  'Cache-Control': 'no-store',
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** The origin of a URL, or undefined when it is not an absolute http(s) URL. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a state-changing request comes from the hub's own pages: its `Origin` (or, when a
 * browser sent none, its `Referer`) has the public URL's origin. `Origin: null` is refused.
 */
export function sameOrigin(
  headers: { origin?: string | undefined; referer?: string | undefined },
  publicUrl: string,
): boolean {
  const expected = originOf(publicUrl);
  if (expected === undefined) return false;
  const sent = headers.origin !== undefined ? originOf(headers.origin) : originOf(headers.referer);
  return sent === expected;
}

/**
 * Where to go after signing in, when `next` is a path on this site: one leading `/`, not `//`
 * or `/\` (which browsers read as another host), and printable ASCII only (browsers drop tabs
 * and newlines, so `/\t/evil.example` would become `//evil.example`). Undefined otherwise.
 */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 2048) return undefined;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(next) && !next.includes('\\') ? next : undefined;
}
