import type { Sql } from 'postgres';

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

  async create(organizationId: string, key: { name: string; prefix: string; digest: Buffer; scopes: string[] }) {
    const [row] = await this.sql<{ id: string; createdAt: Date }[]>`
      insert into api_keys (organization_id, name, prefix, digest, scopes)
      values (${organizationId}, ${key.name}, ${key.prefix}, ${key.digest}, ${key.scopes})
      returning id, created_at as "createdAt"`;
    return row as { id: string; createdAt: Date };
  }

  async list(organizationId: string): Promise<ApiKeyListing[]> {
    return this.sql<ApiKeyListing[]>`
      select id, name, prefix, scopes, created_at as "createdAt", last_used_at as "lastUsedAt",
             case when revoked_at is null then 'active' else 'revoked' end as status
      from api_keys where organization_id = ${organizationId} order by created_at, id`;
  }

  /**
   * Revokes a key and expires its unconsumed enrollment tokens, in one transaction. The row
   * lock it takes waits for any token issuance of this key in flight (which holds the key row
   * FOR SHARE), so no live token of a revoked key can be left behind.
   */
  async revoke(organizationId: string, id: string): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const [row] = await tx`
        update api_keys set revoked_at = coalesce(revoked_at, now())
        where organization_id = ${organizationId} and id = ${id} returning id`;
      if (row === undefined) return false;
      await tx`
        update enrollment_tokens set expires_at = now()
        where api_key_id = ${id} and consumed_at is null and expires_at > now()`;
      return true;
    });
  }
}
