// How the hub sends webhooks (DECISIONS.md, Outbound webhooks): the decided schedule and limits,
// and the two things an operator may change (HUB_WEBHOOK_ALLOW_PRIVATE, HUB_WEBHOOK_RETRY_DELAYS_MS).

export interface WebhookSettings {
  /** HUB_WEBHOOK_ALLOW_PRIVATE=true: private, loopback and link-local destinations, and `http://`, are allowed. */
  allowPrivate: boolean;
  /** The waits before the 2nd, 3rd… attempt; after the last, the delivery fails. */
  retryDelaysMs: readonly number[];
  /** An attempt with no 2xx within this long has failed. */
  timeoutMs: number;
  /** An endpoint with nothing but failures for this long is disabled. */
  disableAfterMs: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_WEBHOOKS: WebhookSettings = {
  allowPrivate: false,
  retryDelaysMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  timeoutMs: 10 * SECOND,
  disableAfterMs: 5 * 24 * HOUR,
};

/** Deliveries are kept this long, then the retention pass deletes them. */
export const KEEP_DELIVERIES_DAYS = 30;

/** A delay of the schedule with its jitter: ±20%, so that endpoints that failed together do not retry together. */
export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (0.8 + 0.4 * random()));
}

/**
 * HUB_WEBHOOK_ALLOW_PRIVATE (`true` or `false`), HUB_WEBHOOK_RETRY_DELAYS_MS (the waits between
 * attempts, comma-separated, for tests and drills) and HUB_WEBHOOK_TIMEOUT_MS (10 s unless tuned).
 */
export function readWebhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const allow = env.HUB_WEBHOOK_ALLOW_PRIVATE ?? '';
  if (!['', 'true', 'false'].includes(allow))
    throw new Error(`HUB_WEBHOOK_ALLOW_PRIVATE must be true or false, not "${allow}"`);
  const delays = env.HUB_WEBHOOK_RETRY_DELAYS_MS ?? '';
  const retryDelaysMs = delays === '' ? DEFAULT_WEBHOOKS.retryDelaysMs : delays.split(',').map(Number);
  if (retryDelaysMs.length > 20 || retryDelaysMs.some((ms) => !Number.isInteger(ms) || ms < 1 || ms > 7 * 24 * HOUR))
    throw new Error(
      `HUB_WEBHOOK_RETRY_DELAYS_MS must be up to 20 whole numbers of milliseconds (at most 7 days), comma-separated, not "${delays}"`,
    );
  const timeout = env.HUB_WEBHOOK_TIMEOUT_MS ?? '';
  const timeoutMs = timeout === '' ? DEFAULT_WEBHOOKS.timeoutMs : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000)
    throw new Error(
      `HUB_WEBHOOK_TIMEOUT_MS must be a whole number of milliseconds from 100 to 60000, not "${timeout}"`,
    );
  return { ...DEFAULT_WEBHOOKS, allowPrivate: allow === 'true', retryDelaysMs, timeoutMs };
}
