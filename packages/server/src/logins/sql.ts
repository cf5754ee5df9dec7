import type { Sql } from 'postgres';
import { auditColumns } from '../audit/sql.js';

export interface NewDeviceAuthorization {
  deviceDigest: Buffer;
  /** Eight letters, without the hyphen. */
  userCode: string;
  clientId: string;
  host: string | null;
  scopes: string[];
  lifetimeSeconds: number;
  intervalSeconds: number;
}

export interface PendingDevice {
  userCode: string;
  clientId: string;
  host: string | null;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
}

/** A credential to issue if the poll finds the request approved: made before, used only then. */
export interface CredentialToIssue {
  digest: Buffer;
  prefix: string;
}

/** What a poll of the token endpoint finds, in RFC 8628's words (section 3.5). */
export type PollOutcome =
  | { kind: 'issued'; scopes: string[] }
  | { kind: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

/** A settled request is kept this long after it expired (for people reading the table), then deleted. */
const KEEP_EXPIRED = '1 day';

/**
 * The device authorization grant's requests (RFC 8628), all in PostgreSQL so that any hub
 * instance answers any step; a poll that finds one approved makes its CLI credential (an
 * api_keys row of kind 'cli', read and revoked through ApiKeyRepository).
 */
export class DeviceAuthorizationRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores a new request; false when its user code is taken by another unsettled request (draw another). */
  async create(request: NewDeviceAuthorization): Promise<boolean> {
    const rows = await this.sql`
      insert into device_authorizations (device_digest, user_code, client_id, host, scopes, expires_at, poll_interval)
      values (${request.deviceDigest}, ${request.userCode}, ${request.clientId}, ${request.host}, ${request.scopes},
              now() + make_interval(secs => ${request.lifetimeSeconds}), ${request.intervalSeconds})
      on conflict (user_code) where status in ('pending', 'approved') do nothing
      returning id`;
    return rows.length === 1;
  }

  /**
   * Settles requests that expired unanswered (so that their user codes can be drawn again) and
   * deletes those long expired. Cheap (by the expiry index), done as requests are made.
   */
  async prune(): Promise<void> {
    await this.sql`
      update device_authorizations set status = 'expired'
      where expires_at <= now() and status in ('pending', 'approved')`;
    await this.sql`delete from device_authorizations where expires_at < now() - ${KEEP_EXPIRED}::interval`;
  }

  /** The request people can still approve or deny: pending and unexpired. */
  async pending(userCode: string): Promise<PendingDevice | undefined> {
    const [row] = await this.sql<PendingDevice[]>`
      select user_code as "userCode", client_id as "clientId", host, scopes, created_at as "createdAt", expires_at as "expiresAt"
      from device_authorizations
      where user_code = ${userCode} and status = 'pending' and expires_at > now()`;
    return row;
  }

  /**
   * Approves a pending request for an organization the account belongs to, or denies it.
   * `forbidden`: not a member (checked in the same statement). Only a pending, unexpired request
   * is decided, once.
   */
  async decide(
    userCode: string,
    accountId: string,
    decision: { approve: true; organizationId: string } | { approve: false },
  ): Promise<'done' | 'not_found' | 'forbidden'> {
    const organizationId = decision.approve ? decision.organizationId : null;
    const [row] = await this.sql<{ decided: boolean; member: boolean }[]>`
      with member as (
        select 1 from organization_members where organization_id = ${organizationId}::uuid and account_id = ${accountId}
      ), decided as (
        update device_authorizations
        set status = ${decision.approve ? 'approved' : 'denied'}, decided_at = now(), account_id = ${accountId},
            organization_id = ${organizationId}::uuid
        where user_code = ${userCode} and status = 'pending' and expires_at > now()
          and (${!decision.approve} or exists (select 1 from member))
        returning id
      )
      select exists (select 1 from decided) as decided, exists (select 1 from member) as member`;
    if (row?.decided) return 'done';
    if (decision.approve && !row?.member && (await this.pending(userCode)) !== undefined) return 'forbidden';
    return 'not_found';
  }

  /**
   * One poll of the token endpoint, in one transaction holding the request's row: an approved
   * request becomes the CLI credential `credential` (if its approver is still a member, whose
   * membership is held FOR SHARE so that a removal waits and then revokes it) and is redeemed,
   * once. A pending one polled sooner than its interval after the last poll is `slow_down`, and
   * its interval grows by 5 s.
   */
  async poll(deviceDigest: Buffer, clientId: string, credential: CredentialToIssue): Promise<PollOutcome> {
    return this.sql.begin(async (tx): Promise<PollOutcome> => {
      const [row] = await tx<
        {
          id: string;
          clientId: string;
          status: string;
          expired: boolean;
          early: boolean;
          host: string | null;
          scopes: string[];
          accountId: string | null;
          organizationId: string | null;
        }[]
      >`
        select id, client_id as "clientId", status, expires_at <= now() as expired,
               coalesce(last_polled_at > now() - make_interval(secs => poll_interval), false) as early,
               host, scopes, account_id as "accountId", organization_id as "organizationId"
        from device_authorizations where device_digest = ${deviceDigest}
        for update`;
      if (row === undefined || row.clientId !== clientId || row.status === 'redeemed') return { kind: 'invalid_grant' };
      if (row.expired) return { kind: 'expired_token' };
      if (row.status === 'denied') return { kind: 'access_denied' };
      if (row.status === 'pending') {
        await tx`
          update device_authorizations
          set last_polled_at = now(), poll_interval = poll_interval + ${row.early ? 5 : 0}
          where id = ${row.id}`;
        return { kind: row.early ? 'slow_down' : 'authorization_pending' };
      }
      const [member] = await tx`
        select 1 from organization_members where organization_id = ${row.organizationId} and account_id = ${row.accountId} for share`;
      if (member === undefined) {
        await tx`update device_authorizations set status = 'denied' where id = ${row.id}`;
        return { kind: 'access_denied' };
      }
      const name = `hub login on ${row.host ?? 'an unnamed host'}`.slice(0, 200);
      await tx`
        with key as (
          insert into api_keys (organization_id, name, prefix, digest, scopes, kind, account_id, host, created_by_account_id)
          values (${row.organizationId}, ${name}, ${credential.prefix}, ${credential.digest}, ${row.scopes}, 'cli', ${row.accountId}, ${row.host}, ${row.accountId})
          returning id, name, prefix
        ), redeemed as (
          update device_authorizations set status = 'redeemed', api_key_id = key.id, last_polled_at = now()
          from key where device_authorizations.id = ${row.id}
        )
        insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
        select ${auditColumns(tx, row.organizationId as string, 'cli_credential.created', { kind: 'account', id: row.accountId as string }, tx`jsonb_build_object('keyId', key.id, 'name', key.name, 'prefix', key.prefix, 'host', ${row.host}::text)`)}
        from key`;
      return { kind: 'issued', scopes: row.scopes };
    });
  }
}
