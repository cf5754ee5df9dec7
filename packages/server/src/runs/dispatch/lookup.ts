import type { CompiledEnvironment, CompiledTrigger } from '@hub/compiler';
import type { Fragment } from 'postgres';
import type { Db } from '../../db/connect.js';
import type { Delivery, Dispatched, FoundTrigger } from './model.js';

export type DeliveryRow = Omit<Dispatched, never> & { requestDigest: string };

interface LookupRow {
  delivery: DeliveryRow | null;
  projectId: string | null;
  revisionId: string | null;
  trigger: CompiledTrigger | null;
  environments: CompiledEnvironment[] | null;
  configuredTriggerId: string | null;
  organizationTrigger: {
    triggerId: string;
    revisionId: string;
    trigger: CompiledTrigger;
    environments: CompiledEnvironment[];
  } | null;
}

/** The earlier dispatch with the key, as one JSON column (null when there is none). */
export function deliveryColumn(sql: Db, organization: Fragment, deliveryKey: string): Fragment {
  return sql`(
    select json_build_object('requestDigest', encode(r.request_digest, 'hex'), 'deliveryKey', r.delivery_key, 'triggerRunId', r.id,
      'receiptId', r.receipt_id, 'triggerId', r.trigger_id, 'triggerName', r.trigger_name,
      'executionId', e.id, 'daemonId', e.daemon_id, 'agentId', e.assignment -> 'agent' ->> 'provider')
    from trigger_runs r join executions e on e.trigger_run_id = r.id and e.step_index = 0
    where r.organization_id = ${organization} and r.delivery_key = ${deliveryKey})`;
}

export function deliveryOf(row: DeliveryRow): Delivery {
  const { requestDigest, ...dispatched } = row;
  return { requestDigest: Buffer.from(requestDigest, 'hex'), dispatched };
}

/**
 * Everything a dispatch reads, as one column for the key check's statement (`Prefetch`; the
 * organization is `key.organization_id`): the run an earlier dispatch with this delivery key
 * started, if any; and the trigger: in the project's active configuration first (found with a
 * JSON path query, so that a large model is not read for it), then among the organization's
 * triggers. `lookupOf` reads it.
 */
export function lookupColumn(
  sql: Db,
  request: { projectSlug: string; trigger: string; deliveryKey: string },
): Fragment {
  return sql`(
    with project as (
      select id from projects where organization_id = key.organization_id and slug = ${request.projectSlug} and active
    ), revision as (
      select r.id, r.model from configuration_revisions r join project p on p.id = r.project_id where r.active
    )
    select json_build_object(
      'delivery', ${deliveryColumn(sql, sql`key.organization_id`, request.deliveryKey)},
      'projectId', (select id from project),
      'revisionId', (select id from revision),
      'trigger', (select jsonb_path_query_first(model, '$.triggers[*] ? (@.name == $name)', jsonb_build_object('name', ${request.trigger}::text)) from revision),
      'environments', (select model -> 'environments' from revision),
      'configuredTriggerId', (select c.id from configured_triggers c join project p on p.id = c.project_id where c.name = ${request.trigger}),
      'organizationTrigger', (
        select json_build_object('triggerId', t.id, 'revisionId', r.id, 'trigger', r.model -> 'triggers' -> 0, 'environments', r.model -> 'environments')
        from triggers t join trigger_revisions r on r.trigger_id = t.id and r.active
        where t.organization_id = key.organization_id and t.name = ${request.trigger})))`;
}

/** What `lookupColumn` read: the earlier dispatch with the delivery key, if any, and the trigger. */
export function lookupOf(value: unknown): {
  earlier?: Delivery;
  found: FoundTrigger | 'project_not_found' | 'trigger_not_found';
} {
  const result = value as LookupRow;
  const earlier = result.delivery === null ? undefined : deliveryOf(result.delivery);
  if (result.projectId === null) return { earlier, found: 'project_not_found' };
  if (result.revisionId !== null && result.trigger !== null) {
    return {
      earlier,
      found: {
        source: 'configuration',
        projectId: result.projectId,
        revisionId: result.revisionId,
        configuredTriggerId: result.configuredTriggerId ?? undefined,
        trigger: result.trigger,
        environments: result.environments ?? [],
      },
    };
  }
  if (result.organizationTrigger === null) return { earlier, found: 'trigger_not_found' };
  return {
    earlier,
    found: {
      source: 'trigger',
      projectId: result.projectId,
      configurationRevisionId: result.revisionId,
      ...result.organizationTrigger,
    },
  };
}
