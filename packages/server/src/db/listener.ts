import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import type { Logger } from '../http/logger.js';
import { connectDatabase, type DatabaseTimeouts } from './connect.js';

// Where the hub LISTENs (issue 29): NOTIFY wakes long-polls, output streams and the background
// loops at once. Through a pooler in transaction mode (PgBouncer) a LISTEN does not hold, so the
// hub takes LISTEN on HUB_LISTEN_DATABASE_URL (a direct connection) when given; else it checks at
// start that a NOTIFY comes back, and when none does it polls, every POLL_MS, and says so.

/** How often what NOTIFY would wake looks again when notifications do not come (polling). */
export const POLL_MS = 1_000;
/** How long the start-up self-test waits for its own NOTIFY. */
const SELF_TEST_MS = 2_000;

/** What is listened through: a client's LISTEN, or (polling) none, with the bound of each wait. */
export interface Listening {
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
  readonly pollMs?: number | undefined;
}

export interface Listener extends Listening {
  /** `direct`: DATABASE_URL's connections; `listen-url`: HUB_LISTEN_DATABASE_URL's; `polling`: none. */
  readonly mode: 'direct' | 'listen-url' | 'polling';
  /** When polling: the longest a wait for a NOTIFY may last. */
  readonly pollMs: number | undefined;
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
  close(): Promise<void>;
}

export async function chooseListener(
  sql: Sql,
  options: { listenUrl: string | undefined; timeouts: DatabaseTimeouts; log: Logger },
): Promise<Listener> {
  const { log } = options;
  if (options.listenUrl !== undefined) {
    // Direct, whatever DATABASE_URL is: session state is what LISTEN needs.
    const direct = connectDatabase(options.listenUrl, {
      max: 1,
      name: 'hub-listen',
      timeouts: { ...options.timeouts, transactionPooling: false },
    });
    if (!(await notifyComesBack(direct)))
      throw new Error(
        'HUB_LISTEN_DATABASE_URL takes no LISTEN: it must be a direct connection to PostgreSQL, not a pooler',
      );
    log.info('notifications: LISTEN on HUB_LISTEN_DATABASE_URL');
    return listenerOn(direct, 'listen-url', () => direct.end({ timeout: 5 }));
  }
  if (await notifyComesBack(sql)) return listenerOn(sql, 'direct', async () => {});
  log.warn(
    `notifications: no NOTIFY came back through DATABASE_URL (a pooler in transaction mode?); polling every ${POLL_MS} ms instead. Set HUB_LISTEN_DATABASE_URL to a direct connection to be woken at once.`,
  );
  return {
    mode: 'polling',
    pollMs: POLL_MS,
    listen: async () => ({ unlisten: async () => {} }),
    close: async () => {},
  };
}

function listenerOn(sql: Sql, mode: 'direct' | 'listen-url', close: () => Promise<void>): Listener {
  return {
    mode,
    pollMs: undefined,
    listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
    close,
  };
}

/** LISTEN on a channel of its own, NOTIFY it, and whether the notification arrives within SELF_TEST_MS. */
async function notifyComesBack(sql: Sql): Promise<boolean> {
  const channel = `hub_self_test_${randomBytes(6).toString('hex')}`;
  let arrived: () => void = () => {};
  const came = new Promise<boolean>((resolve) => (arrived = () => resolve(true)));
  const { unlisten } = await sql.listen(channel, () => arrived());
  try {
    await sql`select pg_notify(${channel}, 'ping')`;
    return await Promise.race([
      came,
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), SELF_TEST_MS).unref()),
    ]);
  } finally {
    await unlisten().catch(() => {});
  }
}
