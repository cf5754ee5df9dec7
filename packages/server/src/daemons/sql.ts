import type { ResourceCatalog } from '@hub/compiler';
import { AuditRepository, auditColumns, type AuditActor } from '../audit/index.js';
import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';

export interface Runtime {
  provider: string;
  modes?: string[];
  models?: string[];
}

/**
 * `not_yours`: `replace` of a daemon someone else enrolled, asked with a token of a member's CLI
 * credential (only owners and organization API keys replace any daemon).
 */
export type EnrollResult =
  { ok: true; daemonId: string; name: string } | { ok: false; reason: 'token_invalid' | 'name_taken' | 'not_yours' };

/** Enrollment tokens, the daemons that consume them, their presence, and their retirement. */
export class DaemonRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Stores a token's digest, ten minutes to live by the database's clock. The issuing key is
   * re-checked FOR SHARE in the same transaction: a revocation racing this issuance either
   * committed first (then nothing is stored) or waits, and expires the token when it commits.
   * Undefined when the key was revoked meanwhile.
   */
  async issueToken(
    organizationId: string,
    apiKeyId: string,
    tokenDigest: Buffer,
  ): Promise<{ expiresAt: Date } | undefined> {
    return atomically(this.sql, async (tx) => {
      const [key] = await tx`select id from api_keys where id = ${apiKeyId} and revoked_at is null for share`;
      if (key === undefined) return undefined;
      const [row] = await tx<{ id: string; expiresAt: Date }[]>`
        insert into enrollment_tokens (organization_id, api_key_id, digest, expires_at)
        values (${organizationId}, ${apiKeyId}, ${tokenDigest}, now() + interval '10 minutes')
        returning id, expires_at as "expiresAt"`;
      const { id, expiresAt } = row as { id: string; expiresAt: Date };
      await new AuditRepository(tx).record(
        organizationId,
        'enrollment_token.issued',
        { kind: 'key', id: apiKeyId },
        { tokenId: id, expiresAt },
      );
      return { expiresAt };
    });
  }

  /**
   * Consumes the token and registers the daemon, atomically: of two enrollments with one token,
   * one wins. A name held by an active daemon refuses the enrollment (and leaves the token
   * unconsumed) unless `replace`, which retires the old identity. A token issued by a CLI
   * credential of a person who is not an owner (as of this transaction) replaces only a daemon
   * that person enrolled; another is refused like a name clash, the token left unconsumed.
   */
  async enroll(
    tokenDigest: Buffer,
    daemon: { name: string; publicKey: object; runtimes: Runtime[]; replace: boolean },
  ): Promise<EnrollResult> {
    try {
      return await atomically(this.sql, async (tx): Promise<EnrollResult> => {
        // The issuing key's row FOR SHARE first: a revocation in flight commits before this reads
        // it (and the key is refused), or waits until this enrollment is done.
        const [token] = await tx<{ id: string; organizationId: string; personId: string | null }[]>`
          select t.id, t.organization_id as "organizationId",
            case when k.kind = 'cli' then k.account_id end as "personId"
          from enrollment_tokens t join api_keys k on k.id = t.api_key_id
          where t.digest = ${tokenDigest} and k.revoked_at is null
          for share of k`;
        if (token === undefined) return { ok: false, reason: 'token_invalid' } as const;
        const [consumed] = await tx`
          update enrollment_tokens set consumed_at = now()
          where id = ${token.id} and consumed_at is null and expires_at > now()
          returning id`;
        if (consumed === undefined) return { ok: false, reason: 'token_invalid' } as const;
        // Enrollments of one name take turns, so that each replace retires the one before it.
        await tx`select pg_advisory_xact_lock(hashtext(${`daemon-name:${token.organizationId}:${daemon.name}`}))`;
        const [holder] = await tx`
          select id from daemons where organization_id = ${token.organizationId} and name = ${daemon.name}
            and retired_at is null`;
        if (holder !== undefined && !daemon.replace) throw new NameTaken();
        if (holder !== undefined && token.personId !== null) {
          const [allowed] = await tx<{ allowed: boolean }[]>`
            select coalesce((select role = 'owner' from organization_members
                             where organization_id = ${token.organizationId} and account_id = ${token.personId}), false)
              or exists (select from daemons d join enrollment_tokens t on t.id = d.enrollment_token_id
                           join api_keys k on k.id = t.api_key_id
                         where d.id = ${holder.id as string} and k.kind = 'cli' and k.account_id = ${token.personId})
              as allowed`;
          if (allowed?.allowed !== true) throw new NotYours();
        }
        if (holder !== undefined) await tx`update daemons set retired_at = now() where id = ${holder.id as string}`;
        const [row] = await tx<{ id: string }[]>`
          insert into daemons (organization_id, name, public_key, runtimes, enrollment_token_id)
          values (${token.organizationId}, ${daemon.name}, ${tx.json(daemon.publicKey as never)},
                  ${tx.json(daemon.runtimes as never)}, ${token.id})
          returning id`;
        const daemonId = (row as { id: string }).id;
        await new AuditRepository(tx).record(
          token.organizationId,
          'daemon.enrolled',
          { kind: 'daemon' },
          {
            daemonId,
            name: daemon.name,
            ...(holder === undefined ? {} : { replacedDaemonId: holder.id as string }),
          },
        );
        return { ok: true, daemonId, name: daemon.name } as const;
      });
    } catch (error) {
      // Two enrollments of one name racing past the check meet the unique index instead.
      if (error instanceof NameTaken || (error as { code?: string }).code === '23505')
        return { ok: false, reason: 'name_taken' };
      if (error instanceof NotYours) return { ok: false, reason: 'not_yours' };
      throw error;
    }
  }

  /** The organization's active daemons and their runtimes, as the compiler's resource catalog. */
  async catalog(organizationId: string): Promise<ResourceCatalog> {
    const rows = await this.sql<{ name: string; runtimes: Runtime[] }[]>`
      select name, runtimes from daemons where organization_id = ${organizationId} and retired_at is null`;
    return { daemons: rows.map((row) => ({ name: row.name, runtimes: row.runtimes })) };
  }

  /** Retires an active daemon: the signature check (auth/daemon-signature.ts) refuses it from now on, and its name is free. */
  async retire(organizationId: string, daemonId: string, actor: AuditActor): Promise<boolean> {
    const rows = await this.sql`
      with retired as (
        update daemons set retired_at = now()
        where organization_id = ${organizationId} and id = ${daemonId} and retired_at is null
        returning id, name
      ), audit as (
        insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
        select ${auditColumns(this.sql, organizationId, 'daemon.retired', actor, this.sql`jsonb_build_object('daemonId', retired.id, 'name', retired.name)`)}
        from retired
      )
      select id from retired`;
    return rows.length === 1;
  }

  /**
   * Retires every active daemon of the organization that the person enrolled (through their CLI
   * credentials), with one `daemon.retired` event each, as `retire` records it. Run in the
   * transaction that ends their membership, after their credentials are revoked: an enrollment
   * in flight holds its credential FOR SHARE, so it has committed (and is retired here) or is
   * refused.
   */
  async retireEnrolledBy(
    organizationId: string,
    accountId: string,
    actor: AuditActor,
  ): Promise<{ id: string; name: string }[]> {
    return this.sql<{ id: string; name: string }[]>`
      with retired as (
        update daemons d set retired_at = now()
        from enrollment_tokens t join api_keys k on k.id = t.api_key_id
        where d.organization_id = ${organizationId} and d.retired_at is null and t.id = d.enrollment_token_id
          and k.kind = 'cli' and k.account_id = ${accountId}
        returning d.id, d.name
      ), audit as (
        insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
        select ${auditColumns(this.sql, organizationId, 'daemon.retired', actor, this.sql`jsonb_build_object('daemonId', retired.id, 'name', retired.name)`)}
        from retired
      )
      select id, name from retired order by name`;
  }

  /** The names of the organization's active daemons that the person enrolled, by name. */
  async namesEnrolledBy(organizationId: string, accountId: string): Promise<string[]> {
    const rows = await this.sql<{ name: string }[]>`
      select d.name from daemons d
        join enrollment_tokens t on t.id = d.enrollment_token_id join api_keys k on k.id = t.api_key_id
      where d.organization_id = ${organizationId} and d.retired_at is null and k.kind = 'cli' and k.account_id = ${accountId}
      order by d.name`;
    return rows.map((row) => row.name);
  }

  async heartbeat(daemonId: string, runtimes: unknown[] | undefined): Promise<Date> {
    const [row] = await this.sql<{ now: Date }[]>`
      update daemons set last_seen_at = now(), runtimes = coalesce(${runtimes === undefined ? null : this.sql.json(runtimes as never)}::jsonb, runtimes)
      where id = ${daemonId} returning now() as now`;
    return (row as { now: Date }).now;
  }

  /** The daemon is present (a long-poll is waiting). */
  async touch(daemonId: string): Promise<void> {
    await this.sql`update daemons set last_seen_at = now() where id = ${daemonId}`;
  }

  /** The daemon said it stops: offline at once (its next signed request brings it back). */
  async stopped(daemonId: string): Promise<void> {
    await this.sql`update daemons set last_seen_at = null, stopped_at = now() where id = ${daemonId}`;
  }
}

class NameTaken extends Error {}
class NotYours extends Error {}
