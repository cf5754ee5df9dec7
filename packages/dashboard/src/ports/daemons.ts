// The storage the daemons pages need: a part of the dashboard's port (DashboardStore extends it).

export interface DaemonRuntimeView {
  provider: string;
  modes: string[];
  models: string[];
}

/** Who enrolled a daemon: a person (with their CLI login), or an organization API key. */
export type DaemonEnroller =
  { kind: 'person'; accountId: string; name: string } | { kind: 'key'; name: string; prefix: string };

export interface DaemonRow {
  id: string;
  name: string;
  /** Seen (heartbeat, long-poll, any signed request) within the hub's offline window, and not retired. */
  online: boolean;
  lastSeenAt: Date | null;
  runtimes: DaemonRuntimeView[];
  enrolledAt: Date;
  retiredAt: Date | null;
  enrolledBy: DaemonEnroller;
}

export interface DaemonList {
  daemons: DaemonRow[];
  /** Another page follows. */
  more: boolean;
}

export interface DaemonQuery {
  /** Retired daemons too (after the active ones). */
  retired: boolean;
  offset: number;
  limit: number;
}

export type DaemonRetirement = 'retired' | 'not_found' | 'forbidden';

export interface DaemonsPort {
  daemons(organizationId: string, query: DaemonQuery): Promise<DaemonList>;
  /** One daemon of the organization, retired or not. */
  daemon(organizationId: string, daemonId: string): Promise<DaemonRow | undefined>;
  /** An owner retires an active daemon: its signed requests are refused and its name is free again. */
  retireDaemon(accountId: string, organizationId: string, daemonId: string): Promise<DaemonRetirement>;
  /** The names of the organization's active daemons the person enrolled: what their removal or leaving retires. */
  enrolledDaemons(organizationId: string, accountId: string): Promise<string[]>;
}
