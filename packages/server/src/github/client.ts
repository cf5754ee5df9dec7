import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { GitHubConfig } from './config.js';
import type { Failure } from './report/sql.js';

const HubOctokit = Octokit.plugin(retry, throttling);
type Client = InstanceType<typeof HubOctokit>;

/** Installations' clients kept, at most this many (each holds its token until shortly before it expires). */
const CLIENTS_KEPT = 1_000;

/**
 * The hub's calls to GitHub's REST API (HUB_GITHUB_API_URL, so GitHub Enterprise Server too), as
 * its app: each installation's client exchanges the app's RS256 JWT for an installation token at
 * `POST /app/installations/{id}/access_tokens` and reuses it until shortly before it expires
 * (@octokit/auth-app). 5xx answers are retried twice at once (@octokit/plugin-retry); a rate limit
 * is not waited out in memory but thrown (@octokit/plugin-throttling's hooks answer no), so that
 * the caller keeps the wait in PostgreSQL, where any instance picks it up (`failureOf`).
 */
export class GitHubClient {
  private readonly clients = new Map<number, Client>();

  constructor(private readonly config: GitHubConfig) {}

  installation(installationId: number): Client {
    let client = this.clients.get(installationId);
    if (client === undefined) {
      client = new HubOctokit({
        baseUrl: this.config.apiUrl,
        userAgent: 'hub',
        authStrategy: createAppAuth,
        auth: { appId: this.config.appId, privateKey: this.config.privateKey, installationId },
        retry: { retries: 2 },
        throttle: { onRateLimit: () => false, onSecondaryRateLimit: () => false },
      });
      if (this.clients.size >= CLIENTS_KEPT) this.clients.delete(this.clients.keys().next().value as number);
      this.clients.set(installationId, client);
    }
    return client;
  }

  /** A pull request's head commit and branch. */
  async pullHead(installationId: number, repository: string, number: number): Promise<{ sha: string; ref: string }> {
    const [owner, repo] = repository.split('/') as [string, string];
    const { data } = await this.installation(installationId).request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner,
      repo,
      pull_number: number,
    });
    return { sha: data.head.sha, ref: data.head.ref };
  }
}

/** The longest wait between two attempts to report, and the first. */
const MAX_BACKOFF_MS = 10 * 60_000;
const FIRST_BACKOFF_MS = 5_000;
/** Attempts (about a day and a half of backoff) before a report is given up; the run page shows it. */
const GIVE_UP_AFTER = 20;
const NEVER = new Date('9999-12-31T00:00:00Z');

/**
 * When to try a failed report again: after the time GitHub names for a rate limit (`Retry-After`,
 * or `x-ratelimit-reset` with no requests remaining), else after a backoff that doubles from 5 s
 * to 10 min, with jitter.
 */
export function failureOf(error: unknown, attempts: number, now = Date.now()): Failure {
  const status = (error as { status?: number }).status;
  const headers = ((error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ??
    {}) as Record<string, string | undefined>;
  const message = error instanceof Error ? error.message : String(error);
  const described = status === undefined ? message : `GitHub answered ${status}: ${message}`;
  const retryAfter = Number(headers['retry-after']);
  const reset = Number(headers['x-ratelimit-reset']);
  let delayedUntil: Date | undefined;
  if ((status === 403 || status === 429) && Number.isFinite(retryAfter) && retryAfter > 0)
    delayedUntil = new Date(now + retryAfter * 1000);
  else if ((status === 403 || status === 429) && headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset))
    delayedUntil = new Date(Math.max(now, reset * 1000) + 1000);
  if (delayedUntil !== undefined) return { error: `${described} (rate limit)`, retryAt: delayedUntil, delayedUntil };
  if (attempts + 1 >= GIVE_UP_AFTER)
    return { error: `${described}; given up after ${GIVE_UP_AFTER} attempts`, retryAt: NEVER };
  const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(attempts, 10));
  return { error: described, retryAt: new Date(now + backoff * (0.8 + Math.random() * 0.4)) };
}
