import type { DaemonList, DaemonQuery, DaemonRetirement, DaemonRow } from '../dashboard/types.js';
import type { Sql } from 'postgres';
import { AccountRepository } from '../people/sql/accounts.js';
import { DaemonListRepository, type DaemonListRow } from './list.js';
import { isUuid } from '../people/input.js';

const view = (row: DaemonListRow): DaemonRow => ({
  ...row,
  runtimes: row.runtimes.map((runtime) => ({
    provider: runtime.provider,
    modes: runtime.modes ?? [],
    models: runtime.models ?? [],
  })),
});

/** The dashboard's daemons, online by the dispatcher's window (`offlineAfterMs`, DispatchTiming's). */
export function daemonStore(sql: Sql, offlineAfterMs: number) {
  const daemons = new DaemonListRepository(sql, offlineAfterMs);
  return {
    async daemons(organizationId: string, query: DaemonQuery): Promise<DaemonList> {
      if (!isUuid(organizationId)) return { daemons: [], more: false };
      const rows = await daemons.list(organizationId, query);
      return { daemons: rows.slice(0, query.limit).map(view), more: rows.length > query.limit };
    },
    async daemon(organizationId: string, daemonId: string): Promise<DaemonRow | undefined> {
      if (!isUuid(organizationId) || !isUuid(daemonId)) return undefined;
      const row = await daemons.find(organizationId, daemonId);
      return row && view(row);
    },
    /** An owner retires a daemon; a member is refused before the daemon is looked up. */
    async retireDaemon(accountId: string, organizationId: string, daemonId: string): Promise<DaemonRetirement> {
      if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
      if ((await new AccountRepository(sql).role(organizationId, accountId)) !== 'owner') return 'forbidden';
      if (!isUuid(daemonId)) return 'not_found';
      return (await daemons.retire(organizationId, daemonId, { kind: 'account', id: accountId }))
        ? 'retired'
        : 'not_found';
    },
  };
}
