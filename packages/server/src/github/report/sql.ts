import type { Db } from '../../db/connect.js';
import type { Item } from '../events.js';

export type MessageBody =
  | { subject: 'issue'; number: number }
  | { subject: 'issue_comment' | 'pull_request_review_comment'; id: number }
  | { number: number; body: string };

export interface Message {
  id: string;
  kind: 'reaction' | 'reply';
  installationId: number;
  repository: string;
  body: MessageBody;
  attempts: number;
}

/** A GitHub run with what has been reported of it, and the run's state. */
export interface ReportedRun {
  triggerRunId: string;
  installationId: number;
  repository: string;
  number: number;
  kind: 'issue' | 'pull_request';
  headSha: string | null;
  commentId: string | null;
  checkRunId: string | null;
  startReported: boolean;
  attempts: number;
  status: string;
  triggerName: string;
  message: string | null;
  plan: { daemon: string }[];
  createdAt: Date;
  finishedAt: Date | null;
}

/** What the hub owes GitHub (migration 014): standalone messages, and each GitHub run's comment and check run. */
export class MessageRepository {
  constructor(private readonly sql: Db) {}

  /** Queues a reaction or a reply of a delivery (at most one of each: a second attempt adds none). */
  async queue(message: {
    deliveryId: string;
    installationId: number;
    repository: string;
    kind: 'reaction' | 'reply';
    body: MessageBody;
  }): Promise<void> {
    await this.sql`
      insert into github_messages (delivery_id, kind, installation_id, repository, body)
      values (${message.deliveryId}, ${message.kind}, ${message.installationId}, ${message.repository}, ${this.sql.json(message.body as never)})
      on conflict (delivery_id, kind) do nothing`;
  }

  /** A run GitHub started: its comment and check run are owed from now on. */
  async trackRun(run: {
    deliveryId: string;
    triggerRunId: string;
    installationId: number;
    repository: string;
    item: Item;
  }): Promise<void> {
    await this.sql`
      insert into github_runs (trigger_run_id, delivery_id, installation_id, repository, number, kind, head_sha)
      values (${run.triggerRunId}, ${run.deliveryId}, ${run.installationId}, ${run.repository}, ${run.item.number},
        ${run.item.kind}, ${run.item.headSha ?? null})
      on conflict do nothing`;
  }

  /** Unsent messages due now, leased to this instance for `leaseMs`. */
  async leaseMessages(limit: number, leaseMs: number): Promise<Message[]> {
    return this.sql<Message[]>`
      update github_messages m set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      from (
        select id from github_messages where sent_at is null and next_attempt_at <= now()
        order by created_at limit ${limit} for update skip locked
      ) due
      where m.id = due.id
      returning m.id, m.kind, m.installation_id::float8 as "installationId", m.repository, m.body, m.attempts`;
  }

  async messageSent(id: string): Promise<void> {
    await this
      .sql`update github_messages set sent_at = now(), attempts = attempts + 1, delayed_until = null where id = ${id}`;
  }

  async messageFailed(id: string, failure: Failure): Promise<void> {
    await this.sql`
      update github_messages set attempts = attempts + 1, last_error = ${failure.error.slice(0, 2000)},
        next_attempt_at = ${failure.retryAt}, delayed_until = ${failure.delayedUntil ?? null}
      where id = ${id}`;
  }

  /**
   * GitHub runs with something to report, due now, leased to this instance: the start not yet
   * reported, or the run ended and its end not yet reported.
   */
  async leaseRuns(limit: number, leaseMs: number): Promise<ReportedRun[]> {
    return this.sql<ReportedRun[]>`
      with due as (
        select g.trigger_run_id from github_runs g join trigger_runs r on r.id = g.trigger_run_id
        where g.ended_reported_at is null and g.next_attempt_at <= now()
          and (g.started_reported_at is null or r.status <> 'running')
        order by g.next_attempt_at limit ${limit}
        for update of g skip locked
      ), leased as (
        update github_runs g set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
        from due where g.trigger_run_id = due.trigger_run_id
        returning g.*
      )
      select l.trigger_run_id as "triggerRunId", l.installation_id::float8 as "installationId", l.repository, l.number,
        l.kind, l.head_sha as "headSha", l.comment_id::text as "commentId", l.check_run_id::text as "checkRunId",
        l.started_reported_at is not null as "startReported", l.attempts, r.status, r.trigger_name as "triggerName",
        r.message, r.plan, r.created_at as "createdAt", r.finished_at as "finishedAt"
      from leased l join trigger_runs r on r.id = l.trigger_run_id`;
  }

  /** What was made on GitHub, recorded at once: a retry edits it rather than making a second. */
  async recordMade(triggerRunId: string, made: { commentId?: number; checkRunId?: number; headSha?: string }) {
    await this.sql`
      update github_runs set comment_id = coalesce(${made.commentId ?? null}, comment_id),
        check_run_id = coalesce(${made.checkRunId ?? null}, check_run_id), head_sha = coalesce(${made.headSha ?? null}, head_sha)
      where trigger_run_id = ${triggerRunId}`;
  }

  /** The start (and, for a run that had ended by then, the end) reported. */
  async reported(triggerRunId: string, ended: boolean): Promise<void> {
    await this.sql`
      update github_runs set started_reported_at = coalesce(started_reported_at, now()),
        ended_reported_at = case when ${ended} then now() end, attempts = 0, last_error = null, delayed_until = null,
        next_attempt_at = now()
      where trigger_run_id = ${triggerRunId}`;
  }

  async runFailed(triggerRunId: string, failure: Failure): Promise<void> {
    await this.sql`
      update github_runs set attempts = attempts + 1, last_error = ${failure.error.slice(0, 2000)},
        next_attempt_at = ${failure.retryAt}, delayed_until = ${failure.delayedUntil ?? null}
      where trigger_run_id = ${triggerRunId}`;
  }

  /** The last lines of a run's last execution's output, oldest first. */
  async outputTail(triggerRunId: string, chunks: number): Promise<string> {
    const rows = await this.sql<{ text: string }[]>`
      select o.text from execution_output o
      where o.execution_id = (select id from executions where trigger_run_id = ${triggerRunId} order by step_index desc limit 1)
      order by o.seq desc limit ${chunks}`;
    return rows
      .reverse()
      .map((row) => row.text)
      .join('');
  }

  /** Leases given up unused (the instance stops): due again at once, for any instance. */
  async handBack(leased: { messages: string[]; runs: string[] }): Promise<void> {
    if (leased.messages.length > 0)
      await this.sql`update github_messages set next_attempt_at = now() where id = any(${leased.messages}::uuid[])`;
    if (leased.runs.length > 0)
      await this.sql`update github_runs set next_attempt_at = now() where trigger_run_id = any(${leased.runs}::uuid[])`;
  }

  /** When the next message or run report is due, if any. */
  async nextDue(): Promise<Date | undefined> {
    const [row] = await this.sql<{ at: Date | null }[]>`
      select least(
        (select min(next_attempt_at) from github_messages where sent_at is null),
        (select min(g.next_attempt_at) from github_runs g join trigger_runs r on r.id = g.trigger_run_id
          where g.ended_reported_at is null and (g.started_reported_at is null or r.status <> 'running'))
      ) as at`;
    return row?.at ?? undefined;
  }
}

/** A failure to report: when to try again, and until when GitHub asked to wait (a rate limit). */
export interface Failure {
  error: string;
  retryAt: Date;
  delayedUntil?: Date;
}
