import { auditColumns, type AuditActor } from '../audit/index.js';
import type { CliCredentialExpiry } from '../auth/api-key.js';
import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';

export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  status: 'active' | 'revoked';
  /** The name of the account that made the key in the dashboard; null for the operator API's. */
  createdBy: string | null;
}

export interface CliCredentialRecord {
  id: string;
  organization: { id: string; slug: string; name: string };
  host: string | null;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** `expired`: unrevoked, but past its CliCredentialExpiry (the key check refuses it). */
  status: 'active' | 'revoked' | 'expired';
}

/** What a bearer credential is, for `GET /api/v1/credential`. */
export interface CredentialRecord {
  id: string;
  kind: 'api_key' | 'cli';
  name: string;
  prefix: string;
  scopes: string[];
  organization: { id: string; slug: string; name: string };
  account: { id: string; name: string; email: string } | null;
  host: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export class ApiKeyRepository {
  constructor(private readonly sql: Db) {}

  /** Creates a key and records who did (as its maker, when an account), in one statement. */
  async create(
    organizationId: string,
    key: { name: string; prefix: string; digest: Buffer; scopes: string[] },
    actor: AuditActor,
  ) {
    const [row] = await this.sql<{ id: string; createdAt: Date }[]>`
      with key as (
        insert into api_keys (organization_id, name, prefix, digest, scopes, created_by_account_id)
        values (${organizationId}, ${key.name}, ${key.prefix}, ${key.digest}, ${key.scopes},
                ${actor.kind === 'account' ? actor.id : null}::uuid)
        returning id, name, prefix, created_at
      ), audit as (
        insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
        select ${auditColumns(this.sql, organizationId, 'api_key.created', actor, this.sql`jsonb_build_object('keyId', key.id, 'name', key.name, 'prefix', key.prefix)`)}
        from key
      )
      select id, created_at as "createdAt" from key`;
    return row as { id: string; createdAt: Date };
  }

  async list(organizationId: string): Promise<ApiKeyListing[]> {
    return this.sql<ApiKeyListing[]>`
      select k.id, k.name, k.prefix, k.scopes, k.created_at as "createdAt", k.last_used_at as "lastUsedAt",
             case when k.revoked_at is null then 'active' else 'revoked' end as status, a.name as "createdBy"
      from api_keys k left join accounts a on a.id = k.created_by_account_id
      where k.organization_id = ${organizationId} and k.kind = 'api_key' order by k.created_at, k.id`;
  }

  /**
   * Revokes a key and expires its unconsumed enrollment tokens, in one transaction. The row
   * lock it takes waits for any token issuance of this key in flight (which holds the key row
   * FOR SHARE), so no live token of a revoked key can be left behind. The first revocation is
   * recorded as an event; revoking a revoked key again changes nothing and records nothing.
   * `filter` narrows which keys this caller may revoke: the dashboard's keys page revokes API
   * keys only, a person their own CLI credentials only.
   */
  async revoke(
    organizationId: string,
    id: string,
    actor: AuditActor,
    filter: { kind?: 'api_key' | 'cli'; accountId?: string } = {},
  ): Promise<boolean> {
    return atomically(this.sql, async (tx) => {
      const [row] = await tx`
        with was as (
          select id, kind, revoked_at from api_keys
          where organization_id = ${organizationId} and id = ${id}
            ${filter.kind === undefined ? tx`` : tx`and kind = ${filter.kind}`}
            ${filter.accountId === undefined ? tx`` : tx`and account_id = ${filter.accountId}`}
          for update
        ), revoked as (
          update api_keys k set revoked_at = coalesce(k.revoked_at, now()) from was where k.id = was.id
          returning k.id, k.name, k.prefix, was.kind, was.revoked_at is null as fresh
        ), audit as (
          insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
          select ${auditColumns(tx, organizationId, 'api_key.revoked', actor, tx`jsonb_build_object('keyId', revoked.id, 'name', revoked.name, 'prefix', revoked.prefix)`)}
          from revoked where revoked.fresh and revoked.kind = 'api_key'
          union all
          select ${auditColumns(tx, organizationId, 'cli_credential.revoked', actor, tx`jsonb_build_object('keyId', revoked.id, 'name', revoked.name, 'prefix', revoked.prefix)`)}
          from revoked where revoked.fresh and revoked.kind = 'cli'
        )
        select id from revoked`;
      if (row === undefined) return false;
      await tx`
        update enrollment_tokens set expires_at = now()
        where api_key_id = ${id} and consumed_at is null and expires_at > now()`;
      return true;
    });
  }

  /**
   * Revokes every live CLI credential of the account, in every organization (its password changed),
   * each with its `cli_credential.revoked` event in its organization, and expires their unconsumed
   * enrollment tokens. First it denies the account's approved `hub login` requests not yet
   * redeemed: a poll redeeming one holds its row, so this waits for it, and the revocation's later
   * snapshot then sees (and revokes) the credential it made. Pass the transaction of the change.
   * The number revoked.
   */
  async revokeCliCredentialsOf(accountId: string, actor: AuditActor): Promise<number> {
    await this
      .sql`update device_authorizations set status = 'denied' where account_id = ${accountId} and status = 'approved'`;
    const revoked = await this.sql<{ id: string }[]>`
      with revoked as (
        update api_keys set revoked_at = now()
        where account_id = ${accountId} and kind = 'cli' and revoked_at is null
        returning id, organization_id, name, prefix
      ), audit as (
        insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
        select ${auditColumns(this.sql, this.sql`revoked.organization_id`, 'cli_credential.revoked', actor, this.sql`jsonb_build_object('keyId', revoked.id, 'name', revoked.name, 'prefix', revoked.prefix)`)}
        from revoked
      ), tokens as (
        update enrollment_tokens set expires_at = now()
        where api_key_id in (select id from revoked) and consumed_at is null and expires_at > now()
      )
      select id from revoked`;
    return revoked.length;
  }

  /** A person's CLI credentials in every organization, newest first; `expiry` tells the expired ones. */
  async cliCredentials(accountId: string, expiry: CliCredentialExpiry): Promise<CliCredentialRecord[]> {
    const rows = await this.sql<
      (Omit<CliCredentialRecord, 'organization'> & { organizationId: string; slug: string; organizationName: string })[]
    >`
      select k.id, k.host, k.prefix, k.scopes, k.created_at as "createdAt", k.last_used_at as "lastUsedAt",
             case when k.revoked_at is not null then 'revoked'
               when coalesce(k.last_used_at, k.created_at) <= now() - make_interval(days => ${expiry.idleDays}::int)
                 or k.created_at <= now() - make_interval(days => ${expiry.lifetimeDays}::int) then 'expired'
               else 'active' end as status,
             o.id as "organizationId", o.slug, o.name as "organizationName"
      from api_keys k join organizations o on o.id = k.organization_id
      where k.account_id = ${accountId} and k.kind = 'cli'
      order by k.created_at desc, k.id`;
    return rows.map(({ organizationId, slug, organizationName, ...row }) => ({
      ...row,
      organization: { id: organizationId, slug, name: organizationName },
    }));
  }

  /** The organization of one of the account's CLI credentials. */
  async cliCredentialOrganization(accountId: string, credentialId: string): Promise<string | undefined> {
    const [row] = await this.sql<{ organizationId: string }[]>`
      select organization_id as "organizationId" from api_keys where id = ${credentialId} and account_id = ${accountId} and kind = 'cli'`;
    return row?.organizationId;
  }

  /** The kind, id and organization of a bearer secret by its digest, revoked or not. */
  async secret(digest: Buffer): Promise<{ id: string; kind: 'api_key' | 'cli'; organizationId: string } | undefined> {
    const [row] = await this.sql<{ id: string; kind: 'api_key' | 'cli'; organizationId: string }[]>`
      select id, kind, organization_id as "organizationId" from api_keys where digest = ${digest}`;
    return row;
  }

  /** What the credential `id` is: its organization, its person (CLI credentials), its scopes. */
  async credential(id: string): Promise<CredentialRecord | undefined> {
    const [row] = await this.sql<
      (Omit<CredentialRecord, 'organization' | 'account'> &
        Record<'organizationId' | 'slug' | 'organizationName', string> &
        Record<'accountId' | 'accountName' | 'email', string | null>)[]
    >`
      select k.id, k.kind, k.name, k.prefix, k.scopes, k.host, k.created_at as "createdAt", k.last_used_at as "lastUsedAt",
             o.id as "organizationId", o.slug, o.name as "organizationName",
             a.id as "accountId", a.name as "accountName", a.email
      from api_keys k join organizations o on o.id = k.organization_id left join accounts a on a.id = k.account_id
      where k.id = ${id}`;
    if (row === undefined) return undefined;
    const { organizationId, slug, organizationName, accountId, accountName, email, ...rest } = row;
    return {
      ...rest,
      organization: { id: organizationId, slug, name: organizationName },
      account: accountId === null ? null : { id: accountId, name: accountName as string, email: email as string },
    };
  }
}
