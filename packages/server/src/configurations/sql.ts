import { ScheduleRepository } from '../schedules/index.js';
import { AuditRepository } from '../audit/index.js';
import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';
import { keyStillValid, unlessRevoked } from '../keys/index.js';

export type AuthoredConfiguration =
  | { shape: 'configuration'; yaml: string; partials: { path: string; content: string }[] }
  | { shape: 'bundle'; files: { path: string; content: string }[] };

export interface InstalledRevision {
  versionId: string;
  version: number;
}

/** Configuration revisions of projects: one active per project, versions from 1 without gaps. */
export class RevisionRepository {
  constructor(private readonly sql: Db) {}

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
      atomically(this.sql, async (tx) => {
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
        // The project's schedule becomes the new revision's at once (schedules/sql.ts).
        await new ScheduleRepository(tx).replace(organizationId, project.id, versionId);
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
