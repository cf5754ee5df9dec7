import type { Sql } from 'postgres';
import type { GitHubClient } from '../client.js';
import { failureOf } from '../client.js';
import { checkSummary, conclusionOf, endedComment, startedComment, type RunFacts } from './bodies.js';
import { MessageRepository, type Message, type ReportedRun } from './sql.js';

/**
 * Leased per look, and how long a lease holds: an instance that dies mid-report frees it then. One
 * installation's reports go one at a time, paced by GitHub's limits (a write a second, a comment
 * every three: @octokit/plugin-throttling), so a lease covers a whole look with room to spare.
 */
const BATCH = 20;
const LEASE_MS = 300_000;
/** Output chunks read for the final comment's last lines. */
const TAIL_CHUNKS = 200;

export interface ReporterOptions {
  sql: Sql;
  client: GitHubClient;
  /** The dashboard's origin, for the run's link. */
  publicUrl: string;
  log: { warn(message: string, fields?: Record<string, unknown>): void };
  /** True once the instance stops: what is not begun yet is handed back for any instance to send. */
  closed: () => boolean;
}

/**
 * One look at what the hub owes GitHub (DECISIONS.md, GitHub, "Reporting back"): reactions and
 * replies, each run's comment (made at the start, edited at the end) and, on a pull request, its
 * check run. A failure to report is kept with the run (`last_error`, `delayed_until`: the run page
 * shows them) and tried again later; it never touches the run. Returns how many were looked at.
 */
export async function reportOnce(options: ReporterOptions): Promise<number> {
  const repository = new MessageRepository(options.sql);
  const [messages, runs] = await Promise.all([
    repository.leaseMessages(BATCH, LEASE_MS),
    repository.leaseRuns(BATCH, LEASE_MS),
  ]);
  // Installations in parallel; each one's reports in turn (GitHub paces each installation's writes).
  const byInstallation = new Map<number, (() => Promise<void>)[]>();
  const queue = (installationId: number, send: () => Promise<void>) =>
    byInstallation.set(installationId, [...(byInstallation.get(installationId) ?? []), send]);
  const handedBack = { messages: [] as string[], runs: [] as string[] };
  for (const message of messages)
    queue(message.installationId, async () => {
      if (options.closed()) handedBack.messages.push(message.id);
      else await sendMessage(options, repository, message);
    });
  for (const run of runs)
    queue(run.installationId, async () => {
      if (options.closed()) handedBack.runs.push(run.triggerRunId);
      else await reportRun(options, repository, run);
    });
  await Promise.all(
    [...byInstallation.values()].map(async (sends) => {
      for (const send of sends) await send();
    }),
  );
  await repository.handBack(handedBack);
  return messages.length + runs.length;
}

async function sendMessage(options: ReporterOptions, repository: MessageRepository, message: Message) {
  const [owner, repo] = message.repository.split('/') as [string, string];
  const github = options.client.installation(message.installationId);
  try {
    const body = message.body;
    if ('body' in body)
      await github.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner,
        repo,
        issue_number: body.number,
        body: body.body,
      });
    else if (body.subject === 'issue')
      await github.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', {
        owner,
        repo,
        issue_number: body.number,
        content: 'eyes',
      });
    else if (body.subject === 'issue_comment')
      await github.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner,
        repo,
        comment_id: body.id,
        content: 'eyes',
      });
    else
      await github.request('POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions', {
        owner,
        repo,
        comment_id: body.id,
        content: 'eyes',
      });
    await repository.messageSent(message.id);
  } catch (error) {
    const failure = failureOf(error, message.attempts);
    options.log.warn('github: a message was not sent; it will be tried again', {
      kind: message.kind,
      repository: message.repository,
      error: failure.error,
      retryAt: failure.retryAt.toISOString(),
    });
    await repository.messageFailed(message.id, failure);
  }
}

async function reportRun(options: ReporterOptions, repository: MessageRepository, run: ReportedRun) {
  const [owner, repo] = run.repository.split('/') as [string, string];
  const github = options.client.installation(run.installationId);
  const ended = run.status !== 'running';
  const facts: RunFacts = {
    triggerName: run.triggerName,
    daemon: run.plan[0]?.daemon ?? 'none',
    runUrl: `${options.publicUrl}/runs/${run.triggerRunId}`,
    status: run.status,
    message: run.message,
    ...(run.finishedAt === null ? {} : { durationMs: run.finishedAt.getTime() - run.createdAt.getTime() }),
    ...(ended ? { tail: await repository.outputTail(run.triggerRunId, TAIL_CHUNKS) } : {}),
  };
  const checkName = `hub/${run.triggerName}`;
  try {
    const body = ended ? endedComment(facts) : startedComment(facts);
    if (run.commentId === null) {
      const { data } = await github.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner,
        repo,
        issue_number: run.number,
        body,
      });
      await repository.recordMade(run.triggerRunId, { commentId: Number(data.id) });
    } else if (ended)
      await github.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        owner,
        repo,
        comment_id: Number(run.commentId),
        body,
      });
    if (run.kind === 'pull_request') {
      let headSha = run.headSha;
      if (headSha === null) {
        headSha = (await options.client.pullHead(run.installationId, run.repository, run.number)).sha;
        await repository.recordMade(run.triggerRunId, { headSha });
      }
      const output = { title: `${run.triggerName}: ${ended ? run.status : 'running'}`, summary: checkSummary(facts) };
      const finished = ended
        ? {
            status: 'completed' as const,
            conclusion: conclusionOf(run.status) as 'success',
            completed_at: new Date().toISOString(),
          }
        : { status: 'in_progress' as const };
      if (run.checkRunId === null) {
        const { data } = await github.request('POST /repos/{owner}/{repo}/check-runs', {
          owner,
          repo,
          name: checkName,
          head_sha: headSha,
          details_url: facts.runUrl,
          external_id: run.triggerRunId,
          started_at: run.createdAt.toISOString(),
          output,
          ...finished,
        });
        await repository.recordMade(run.triggerRunId, { checkRunId: Number(data.id) });
      } else if (ended)
        await github.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          owner,
          repo,
          check_run_id: Number(run.checkRunId),
          output,
          ...finished,
        });
    }
    await repository.reported(run.triggerRunId, ended);
  } catch (error) {
    const failure = failureOf(error, run.attempts);
    options.log.warn('github: a run was not reported; it will be tried again', {
      triggerRunId: run.triggerRunId,
      error: failure.error,
      retryAt: failure.retryAt.toISOString(),
    });
    await repository.runFailed(run.triggerRunId, failure);
  }
}
