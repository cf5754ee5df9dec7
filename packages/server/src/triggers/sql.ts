import { AuditRepository } from '../audit/index.js';
import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';
import { keyStillValid, unlessRevoked } from '../keys/index.js';

export interface InstalledTrigger {
  triggerId: string;
  name: string;
  revisionId: string;
  version: number;
}

/** The organization's B triggers, each with revisions of its own. */
export class TriggerRepository {
  constructor(private readonly sql: Db) {}

  /** Like a configuration's install: `key_revoked` (nothing stored) when the key was revoked before the commit. */
  async install(
    organizationId: string,
    name: string,
    yaml: string,
    model: string,
    apiKeyId: string,
  ): Promise<InstalledTrigger | 'key_revoked'> {
    return unlessRevoked(
      atomically(this.sql, async (tx) => {
        const [trigger] = await tx<{ id: string; version: number }[]>`
        insert into triggers (organization_id, name, last_version) values (${organizationId}, ${name}, 1)
        on conflict (organization_id, name) do update set last_version = triggers.last_version + 1
        returning id, last_version as version`;
        const { id, version } = trigger as { id: string; version: number };
        await tx`update trigger_revisions set active = false where trigger_id = ${id} and active`;
        const [revision] = await tx<{ id: string }[]>`
        insert into trigger_revisions (trigger_id, version, yaml, model, active, api_key_id)
        values (${id}, ${version}, ${yaml}, ${model}::text::jsonb, true, ${apiKeyId})
        returning id`;
        const revisionId = (revision as { id: string }).id;
        await new AuditRepository(tx).record(
          organizationId,
          'trigger.installed',
          { kind: 'key', id: apiKeyId },
          { triggerId: id, trigger: name, version, revisionId },
        );
        await keyStillValid(tx, apiKeyId);
        return { triggerId: id, name, revisionId, version };
      }),
    );
  }
}
