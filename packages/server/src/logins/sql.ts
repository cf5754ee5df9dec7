import type { Db } from '../db/connect.js';
import { auditColumns } from '../audit/index.js';

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

/** A request as a poll of the token endpoint finds it. */
export interface PolledRequest {
  id: string;
  clientId: string;
  status: string;
  expired: boolean;
  /** Polled sooner than its interval after the last poll. */
  early: boolean;
  host: string | null;
  scopes: string[];
  accountId: string | null;
  organizationId: string | null;
}

/** A settled request is kept this long after it expired (for people reading the table), then deleted. */
const KEEP_EXPIRED = '1 day';

/**
 * The device authorization grant's requests (RFC 8628), all in PostgreSQL so that any hub
 * instance answers any step; a poll that finds one approved makes its CLI credential (an
 * api_keys row of kind 'cli', read and revoked through ApiKeyRepository). Built on the pool or
 * on a transaction (a poll is one: logins/device-flow.ts).
 */
export class DeviceAuthorizationRepository {
  constructor(private readonly sql: Db) {}

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
   * `forbidden`: not a member (checked in the same statement), whatever the code. Only a pending,
   * unexpired request is decided, once.
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
    // Whether the code is live or not: answering `forbidden` for live codes only would tell which are.
    if (decision.approve && !row?.member) return 'forbidden';
    return 'not_found';
  }

  /**
   * The request of a device code, its row locked (FOR UPDATE) until the transaction ends: one
   * poll at a time decides it.
   */
  async lockForPoll(deviceDigest: Buffer): Promise<PolledRequest | undefined> {
    const [row] = await this.sql<PolledRequest[]>`
      select id, client_id as "clientId", status, expires_at <= now() as expired,
             coalesce(last_polled_at > now() - make_interval(secs => poll_interval), false) as early,
             host, scopes, account_id as "accountId", organization_id as "organizationId"
      from device_authorizations where device_digest = ${deviceDigest}
      for update`;
    return row;
  }

  /** A poll of a pending request: an early one makes its interval 5 s longer (slow_down). */
  async polled(id: string, early: boolean): Promise<void> {
    await this.sql`
      update device_authorizations
      set last_polled_at = now(), poll_interval = poll_interval + ${early ? 5 : 0}
      where id = ${id}`;
  }

  /**
   * Whether the approver is still a member of the organization, their membership held FOR SHARE
   * until the transaction ends (a removal waits, then revokes the credential).
   */
  async approverIsMember(request: PolledRequest): Promise<boolean> {
    const [member] = await this.sql`
      select 1 from organization_members where organization_id = ${request.organizationId} and account_id = ${request.accountId} for share`;
    return member !== undefined;
  }

  async deny(id: string): Promise<void> {
    await this.sql`update device_authorizations set status = 'denied' where id = ${id}`;
  }

  /** Makes an approved request's CLI credential and redeems the request, with the credential's audit event. */
  async redeem(request: PolledRequest, credential: CredentialToIssue): Promise<void> {
    const name = `hub login on ${request.host ?? 'an unnamed host'}`.slice(0, 200);
    const sql = this.sql;
    await sql`
      with key as (
        insert into api_keys (organization_id, name, prefix, digest, scopes, kind, account_id, host, created_by_account_id)
        values (${request.organizationId}, ${name}, ${credential.prefix}, ${credential.digest}, ${request.scopes}, 'cli', ${request.accountId}, ${request.host}, ${request.accountId})
        returning id, name, prefix
      ), redeemed as (
        update device_authorizations set status = 'redeemed', api_key_id = key.id, last_polled_at = now()
        from key where device_authorizations.id = ${request.id}
      )
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      select ${auditColumns(sql, request.organizationId as string, 'cli_credential.created', { kind: 'account', id: request.accountId as string }, sql`jsonb_build_object('keyId', key.id, 'name', key.name, 'prefix', key.prefix, 'host', ${request.host}::text)`)}
      from key`;
  }
}
