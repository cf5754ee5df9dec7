import type { Sql } from 'postgres';
import type { GitHubReport } from '@hub/dashboard';

/**
 * What the hub has told GitHub of a run GitHub started: its github_runs row (the comment and the
 * check run) and the messages of its delivery (the eyes reaction, a reply). Another part of the
 * hub writes them; the run's page only reads them.
 */
export async function reportOf(sql: Sql, organizationId: string, runId: string): Promise<GitHubReport | undefined> {
  const [run] = await sql<{ id: string }[]>`
    select id from trigger_runs where id = ${runId} and organization_id = ${organizationId} and source = 'github'`;
  if (run === undefined) return undefined;
  const [reported] = await sql<NonNullable<GitHubReport['run']>[]>`
    select comment_id::float8 as "commentId", check_run_id::float8 as "checkRunId",
           started_reported_at as "startedReportedAt", ended_reported_at as "endedReportedAt",
           attempts, last_error as "lastError", delayed_until as "delayedUntil"
    from github_runs where trigger_run_id = ${runId}`;
  const messages = await sql<GitHubReport['messages']>`
    select m.kind, m.sent_at as "sentAt", m.last_error as "lastError", m.delayed_until as "delayedUntil"
    from github_messages m
    where m.trigger_run_id = ${runId}
       or m.delivery_id = (select delivery_id from github_runs where trigger_run_id = ${runId})
    order by m.created_at, m.kind`;
  return { run: reported, messages };
}
