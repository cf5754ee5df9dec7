import type { Sql } from 'postgres';
import type { Compile } from '../compile/pool.js';
import { compileForOrganization, type Invalid } from '../configurations/index.js';
import { TriggerRepository, type InstalledTrigger } from './sql.js';

export type TriggerCheck = { ok: true; name: string; model: string } | Invalid;

/** Compiles a trigger (B) against the organization's resources; its name is its one trigger's. */
export async function checkTrigger(
  sql: Sql,
  compile: Compile,
  organizationId: string,
  yaml: string,
): Promise<TriggerCheck> {
  const compiled = await compileForOrganization(sql, compile, organizationId, { kind: 'trigger', input: { yaml } });
  return compiled.ok ? { ok: true, name: compiled.triggerNames[0] as string, model: compiled.model } : compiled;
}

export type TriggerInstall = { ok: true; trigger: InstalledTrigger } | { ok: false; reason: 'key_revoked' } | Invalid;

/** Checks a trigger, then makes it the active revision of the organization's trigger of its name. */
export async function installTrigger(
  sql: Sql,
  compile: Compile,
  by: { organizationId: string; keyId: string },
  yaml: string,
): Promise<TriggerInstall> {
  const checked = await checkTrigger(sql, compile, by.organizationId, yaml);
  if (!checked.ok) return checked;
  const installed = await new TriggerRepository(sql).install(
    by.organizationId,
    checked.name,
    yaml,
    checked.model,
    by.keyId,
  );
  return installed === 'key_revoked' ? { ok: false, reason: 'key_revoked' } : { ok: true, trigger: installed };
}
