import type { Sql } from 'postgres';
import type { DashboardStore } from '../dashboard/types.js';
import { isUuid } from '@hub/schemas';
import { createKey, listKeys, revokeKey } from './service.js';

/** The keys part of the dashboard's store: an owner's changes go through the service's role check. */
export function keyStore(sql: Sql): Pick<DashboardStore, 'apiKeys' | 'createApiKey' | 'revokeApiKey'> {
  return {
    apiKeys: async (organizationId) => (isUuid(organizationId) ? listKeys(sql, organizationId) : []),
    async createApiKey(accountId, organizationId, key) {
      const created = await createKey(sql, { kind: 'account', id: accountId }, organizationId, key);
      return created.ok
        ? { ok: true, id: created.key.id, prefix: created.key.prefix, secret: created.key.secret }
        : created;
    },
    async revokeApiKey(accountId, organizationId, keyId) {
      const revoked = await revokeKey(sql, { kind: 'account', id: accountId }, organizationId, keyId);
      return revoked.ok ? 'revoked' : revoked.reason;
    },
  };
}
