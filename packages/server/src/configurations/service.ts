import type { Issue } from '@hub/compiler';
import type { Sql } from 'postgres';
import type { Compile } from '../compile/pool.js';
import type { CompileTask } from '../compile/tasks.js';
import { resourceCatalog } from '../daemons/index.js';
import type { Db } from '../db/connect.js';
import { activeProject } from '../projects/index.js';
import { RevisionRepository, type AuthoredConfiguration, type InstalledRevision } from './sql.js';

type WithoutCatalog<T> = T extends unknown ? Omit<T, 'catalog'> : never;
/** A document to compile for an organization: a configuration, a legacy bundle or a trigger. */
export type CompileDocument = WithoutCatalog<CompileTask>;

/** A document that did not compile (`compile`), or names resources the organization does not have (`resources`). */
export type Invalid = { ok: false; reason: 'invalid'; stage: 'compile' | 'resources'; issues: Issue[] };
export type Compiled = { ok: true; model: string; triggerNames: string[] } | Invalid;

/** Compiles a document, then resolves what it names against the organization's active daemons. */
export async function compileForOrganization(
  db: Db,
  compile: Compile,
  organizationId: string,
  document: CompileDocument,
): Promise<Compiled> {
  const catalog = await resourceCatalog(db, organizationId);
  const result = await compile({ ...document, catalog } as CompileTask);
  return result.ok ? result : { ok: false, reason: 'invalid', stage: result.stage, issues: result.issues };
}

export type ConfigurationCheck =
  { ok: true; model: string; triggerNames: string[] } | { ok: false; reason: 'project_not_found' } | Invalid;

/** What validating a configuration is, and the first half of installing one: its active project, then its compile. */
export async function checkConfiguration(
  sql: Sql,
  compile: Compile,
  organizationId: string,
  projectSlug: string,
  authored: AuthoredConfiguration,
): Promise<ConfigurationCheck> {
  if ((await activeProject(sql, organizationId, projectSlug)) === undefined)
    return { ok: false, reason: 'project_not_found' };
  return compileForOrganization(
    sql,
    compile,
    organizationId,
    authored.shape === 'configuration'
      ? { kind: 'configuration', input: { yaml: authored.yaml, partials: authored.partials } }
      : { kind: 'bundle', input: { files: authored.files } },
  );
}

export type ConfigurationInstall =
  { ok: true; revision: InstalledRevision } | { ok: false; reason: 'project_not_found' | 'key_revoked' } | Invalid;

/** Checks a configuration, then makes it the project's active revision, installed by the key `keyId`. */
export async function installConfiguration(
  sql: Sql,
  compile: Compile,
  by: { organizationId: string; keyId: string },
  projectSlug: string,
  authored: AuthoredConfiguration,
): Promise<ConfigurationInstall> {
  const checked = await checkConfiguration(sql, compile, by.organizationId, projectSlug, authored);
  if (!checked.ok) return checked;
  const { model, triggerNames } = checked;
  const revision = await new RevisionRepository(sql).install(
    by.organizationId,
    projectSlug,
    authored,
    { model, triggerNames },
    by.keyId,
  );
  if (revision === 'key_revoked') return { ok: false, reason: 'key_revoked' };
  // The project was deactivated between the check and the install.
  if (revision === undefined) return { ok: false, reason: 'project_not_found' };
  return { ok: true, revision };
}
