// A PostgreSQL primary with a synchronous streaming replica, both clusters of the test's own
// (support/cluster.ts), for the failover drill: the primary can be stopped at once and the replica
// promoted, as a failover manager (Patroni, pg_auto_failover) or an operator would.
import { join } from 'node:path';
import postgres from 'postgres';
import { appendSettings, clusterDirectory, runCluster, startCluster, type Cluster } from './cluster.js';

export interface ReplicatedPair {
  primary: Cluster;
  replica: Cluster & {
    /** `pg_ctl promote`; resolves once the replica has left recovery and takes writes. */
    promote(): Promise<void>;
  };
  /** The multi-host URL of `database` on the pair, as a hub would be given it: the writable one of the two. */
  url(database: string): string;
  /** Stops both (immediately) and removes their directories. */
  destroy(): Promise<void>;
}

/**
 * The primary (initdb, synchronous_commit = on, every standby synchronous) and its replica
 * (pg_basebackup -R on another free port), resolved once the primary's pg_stat_replication shows
 * the replica streaming and `sync`: from then on every commit the primary acknowledges is on both.
 */
export async function startReplicatedPair(bin: string): Promise<ReplicatedPair> {
  const primary = await startCluster(bin, {
    wal_level: 'replica',
    max_wal_senders: '4',
    synchronous_standby_names: '*',
    synchronous_commit: 'on',
  });
  let replica: Cluster | undefined;
  try {
    const directory = await clusterDirectory();
    await directory.as(join(bin, 'pg_basebackup'), [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
      ...['-D', directory.data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
    // The base backup copied the primary's postgresql.conf. Once promoted, the replica has no
    // standby of its own: with `*` it would wait for one at every commit, for ever.
    appendSettings(directory, { synchronous_standby_names: '' });
    const started = await runCluster(bin, directory);
    replica = started;
    await untilSynchronous(primary.url);
    const promote = async () => {
      await directory.as(join(bin, 'pg_ctl'), ['-D', directory.data, '-w', '-t', '60', 'promote']);
    };
    return {
      primary,
      replica: { ...started, promote },
      url: (database) =>
        `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${started.port}/${database}?target_session_attrs=read-write`,
      destroy: async () => {
        await Promise.all([primary.destroy(), started.destroy()]);
      },
    };
  } catch (error) {
    await Promise.all([primary.destroy(), replica?.destroy()]);
    throw error;
  }
}

/** Waits (up to 60 s) until the primary streams to a standby it counts as synchronous. */
async function untilSynchronous(primaryUrl: string): Promise<void> {
  const sql = postgres(primaryUrl, { max: 1, onnotice: () => {} });
  try {
    for (let tries = 0; ; tries++) {
      const rows = await sql<{ state: string; sync_state: string }[]>`
        select state, sync_state from pg_stat_replication`;
      if (rows.some((row) => row.state === 'streaming' && row.sync_state === 'sync')) return;
      if (tries > 600) throw new Error(`the replica never became synchronous: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
}
