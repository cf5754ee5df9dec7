import type { Sql, TransactionSql } from 'postgres';
import { AuditRepository } from '../audit/sql.js';

/** Rolls an install back: its key was revoked before it could commit. */
class KeyRevoked extends Error {}

/**
 * The last statement of an install's transaction: the installing key, unrevoked, locked FOR KEY
 * SHARE until the commit. A revocation (which locks the row FOR UPDATE) that committed first is
 * seen, one in flight is waited for and then seen, and one that comes later waits for this
 * commit: either the install commits before the revocation, or it stores nothing. KEY SHARE,
 * not SHARE, so that the key check's lastUsedAt update on other requests does not wait for it.
 */
async function keyStillValid(tx: TransactionSql, apiKeyId: string): Promise<void> {
  const [key] = await tx`select 1 from api_keys where id = ${apiKeyId} and revoked_at is null for key share`;
  if (key === undefined) throw new KeyRevoked();
}

/** Runs an install's transaction; `key_revoked` when `keyStillValid` rolled it back. */
async function unlessRevoked<T>(install: Promise<T>): Promise<T | 'key_revoked'> {
  try {
    return await install;
  } catch (error) {
    if (error instanceof KeyRevoked) return 'key_revoked';
    throw error;
  }
}

export type AuthoredConfiguration =
  | { shape: 'configuration'; yaml: string; partials: { path: string; content: string }[] }
  | { shape: 'bundle'; files: { path: string; content: string }[] };

export interface InstalledRevision {
  versionId: string;
  version: number;
}

/** Configuration revisions of projects: one active per project, versions from 1 without gaps. */
export class RevisionRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Stores the authored content exactly, with its compiled model (JSON text) and the key that installed it
   * (and an id for each trigger name that is new to the project),
   * and makes it the project's active revision. Concurrent installs to one project queue on the
   * project row; a failure anywhere rolls everything back, version counter included.
   * Undefined when the project is no longer active; `key_revoked` (nothing stored) when the key
   * was revoked before the commit.
   */
  async install(
    organizationId: string,
    projectSlug: string,
    authored: AuthoredConfiguration,
    compiled: { model: string; triggerNames: string[] },
    apiKeyId: string,
  ): Promise<InstalledRevision | undefined | 'key_revoked'> {
    return unlessRevoked(
      this.sql.begin(async (tx) => {
        const [project] = await tx<{ id: string; version: number }[]>`
        update projects set last_version = last_version + 1
        where organization_id = ${organizationId} and slug = ${projectSlug} and active
        returning id, last_version as version`;
        if (project === undefined) return undefined;
        await tx`update configuration_revisions set active = false where project_id = ${project.id} and active`;
        const yaml = authored.shape === 'configuration' ? authored.yaml : null;
        const partials = authored.shape === 'configuration' ? tx.json(authored.partials) : null;
        const files = authored.shape === 'bundle' ? tx.json(authored.files) : null;
        const [revision] = await tx<{ id: string }[]>`
        insert into configuration_revisions (project_id, version, shape, yaml, partials, files, model, active, api_key_id)
        values (${project.id}, ${project.version}, ${authored.shape}, ${yaml}, ${partials}, ${files},
                ${compiled.model}::text::jsonb, true, ${apiKeyId})
        returning id`;
        // A's triggerId is stable per (project, trigger name): made here, so that a dispatch only reads it.
        if (compiled.triggerNames.length > 0) {
          await tx`
          insert into configured_triggers (project_id, name)
          select ${project.id}, name from unnest(${compiled.triggerNames}::text[]) as name
          on conflict (project_id, name) do nothing`;
        }
        const versionId = (revision as { id: string }).id;
        await new AuditRepository(tx).record(
          organizationId,
          'configuration.installed',
          { kind: 'key', id: apiKeyId },
          {
            projectSlug,
            version: project.version,
            revisionId: versionId,
          },
        );
        await keyStillValid(tx, apiKeyId);
        return { versionId, version: project.version };
      }),
    );
  }
}

export interface InstalledTrigger {
  triggerId: string;
  name: string;
  revisionId: string;
  version: number;
}

/** The organization's B triggers, each with revisions of its own. */
export class TriggerRepository {
  constructor(private readonly sql: Sql) {}

  /** Like a configuration's install: `key_revoked` (nothing stored) when the key was revoked before the commit. */
  async install(
    organizationId: string,
    name: string,
    yaml: string,
    model: string,
    apiKeyId: string,
  ): Promise<InstalledTrigger | 'key_revoked'> {
    return unlessRevoked(
      this.sql.begin(async (tx) => {
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
