// Failures a test asks for: GitHub down (5xx) and rate limits, primary (x-ratelimit-remaining: 0
// until x-ratelimit-reset) or secondary (Retry-After), with GitHub's headers and messages.
import type { RawAnswer } from './credentials.js';

export interface FailOptions {
  /** The requests it applies to, by path (relative to the API's base); default every request. */
  match?: RegExp;
  status: number;
  /** How many matching requests fail; default 1. */
  times?: number;
}

export interface RateLimitOptions {
  match?: RegExp;
  times?: number;
  /** Epoch seconds: x-ratelimit-reset. */
  resetAt: number;
  /** Seconds: a secondary rate limit, with Retry-After. */
  retryAfter?: number;
  /** 403 (default) or 429. */
  status?: 403 | 429;
}

interface Pending {
  match: RegExp | undefined;
  times: number;
  answer: (installationId: number | undefined) => RawAnswer;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): RawAnswer => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

export class Faults {
  private readonly pending: Pending[] = [];

  failNext(options: FailOptions): void {
    const message = options.status >= 500 ? 'Server Error' : 'Injected failure';
    this.pending.push({
      match: options.match,
      times: options.times ?? 1,
      answer: () => json(options.status, { message, documentation_url: 'https://docs.github.com/rest' }),
    });
  }

  rateLimitNext(options: RateLimitOptions): void {
    const status = options.status ?? 403;
    const reset = String(options.resetAt);
    this.pending.push({
      match: options.match,
      times: options.times ?? 1,
      answer: (installationId) => {
        if (options.retryAfter !== undefined) {
          const message =
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.';
          return json(
            status,
            { message, documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' },
            { 'retry-after': String(options.retryAfter), 'x-ratelimit-reset': reset },
          );
        }
        const who = installationId === undefined ? '' : ` for installation ID ${installationId}`;
        return json(
          status,
          {
            message: `API rate limit exceeded${who}.`,
            documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
          },
          {
            'x-ratelimit-limit': '5000',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-used': '5000',
            'x-ratelimit-reset': reset,
            'x-ratelimit-resource': 'core',
          },
        );
      },
    });
  }

  /** The failure this request meets, if any (and one fewer left of it). */
  take(path: string, installationId: number | undefined): RawAnswer | undefined {
    const index = this.pending.findIndex((fault) => fault.match === undefined || fault.match.test(path));
    const fault = this.pending[index];
    if (fault === undefined) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.pending.splice(index, 1);
    return fault.answer(installationId);
  }
}
