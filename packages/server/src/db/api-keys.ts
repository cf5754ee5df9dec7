import type { Sql } from 'postgres';
import { auditColumns, type AuditActor } from './audit.js';

export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  status: 'active' | 'revoked';
}

export class ApiKeyRepository {
  constructor(private readonly sql: Sql) {}

  /** Creates a key and records who did, in one statement. */
  async create(organizationId: string, key: { name: string; prefix: string; digest: Buffer; scopes: string[] }, actor: AuditActor) {
    const [row] = await this.sql<{ id: string; createdAt: Date }[]>`
      with key as (
        insert into api_keys (organization_id, name, prefix, digest, scopes)
        values (${organizationId}, ${key.name}, ${key.prefix}, ${key.digest}, ${key.scopes})
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
      select id, name, prefix, scopes, created_at as "createdAt", last_used_at as "lastUsedAt",
             case when revoked_at is null then 'active' else 'revoked' end as status
      from api_keys where organization_id = ${organizationId} and kind = 'api_key' order by created_at, id`;
  }

  /**
   * Revokes a key and expires its unconsumed enrollment tokens, in one transaction. The row
   * lock it takes waits for any token issuance of this key in flight (which holds the key row
   * FOR SHARE), so no live token of a revoked key can be left behind. The first revocation is
   * recorded as an event; revoking a revoked key again changes nothing and records nothing.
   * `filter` narrows which keys this caller may revoke: the dashboard's keys page revokes API
   * keys only, a person their own CLI credentials only.
   */
  async revoke(organizationId: string, id: string, actor: AuditActor, filter: { kind?: 'api_key' | 'cli'; accountId?: string } = {}): Promise<boolean> {
    return this.sql.begin(async (tx) => {
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
}
