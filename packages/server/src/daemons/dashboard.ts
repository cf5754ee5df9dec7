import type { Sql } from 'postgres';
import type { DaemonList, DaemonQuery, DaemonRetirement, DaemonRow } from '../dashboard/types.js';
import type { DaemonListRow } from './list.js';
import { daemonsEnrolledBy, findDaemon, listDaemons, retireDaemon } from './service.js';

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
  return {
    async daemons(organizationId: string, query: DaemonQuery): Promise<DaemonList> {
      const listed = await listDaemons(sql, offlineAfterMs, organizationId, query);
      return { daemons: listed.daemons.map(view), more: listed.more };
    },
    async daemon(organizationId: string, daemonId: string): Promise<DaemonRow | undefined> {
      const row = await findDaemon(sql, offlineAfterMs, organizationId, daemonId);
      return row && view(row);
    },
    async retireDaemon(accountId: string, organizationId: string, daemonId: string): Promise<DaemonRetirement> {
      const retired = await retireDaemon(sql, { kind: 'account', id: accountId }, organizationId, daemonId);
      return retired.ok ? 'retired' : retired.reason;
    },
    enrolledDaemons(organizationId: string, accountId: string): Promise<string[]> {
      return daemonsEnrolledBy(sql, organizationId, accountId);
    },
  };
}
