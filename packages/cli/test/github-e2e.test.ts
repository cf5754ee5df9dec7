// GitHub end to end (DECISIONS.md, GitHub; issue 27): signed deliveries of GitHub's real payloads
// to two hub instances, runs on the reference daemon (`hub daemon run`, a child process), and
// what the hub writes back to a local GitHub stand-in that checks every request against GitHub's
// OpenAPI description (GitHub Enterprise Server's layout, HUB_GITHUB_API_URL=<host>/api/v3).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import {
  issueCommentCreated,
  issuesLabeled,
  pullRequestLabeled,
  pullRequestReviewCommentCreated,
} from '../../server/test/support/github/index.js';
import { eventually } from '../../server/test/support/poll.js';
import { HEAD, INSTALLATION, REPO, startGitHubWorld, type GitHubWorld } from './support/github-world.js';

describe('GitHub end to end: two hubs, the reference daemon, the GitHub stand-in', () => {
  let world: GitHubWorld;

  beforeAll(async () => {
    world = await startGitHubWorld();
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('a mention in an issue comment: eyes, a comment, the run with the actor and inputs, the comment edited with the outcome', async () => {
    const commentId = world.github.addComment(REPO, 1, {
      body: '@hub-bot fix-tests lines=25 the flaky parser test',
      login: 'octocat',
    });
    const delivery = await world.send(
      issueCommentCreated({
        repository: REPO,
        installationId: INSTALLATION,
        number: 1,
        commentId,
        body: '@hub-bot fix-tests lines=25 the flaky parser test',
        login: 'octocat',
      }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'succeeded');
    expect(run).toMatchObject({
      trigger: 'fix-tests',
      actor: 'octocat',
      source: 'github',
      inputs: { lines: '25', fail: 'no', sleep_ms: '0' },
      event: {
        trigger: 'github.mention',
        repository: REPO,
        number: '1',
        kind: 'issue',
        branch: '',
        deliveryId: delivery,
      },
    });
    const [row] = await world.sql<{ prompt: string; key: string }[]>`
      select plan -> 0 ->> 'prompt' as prompt, delivery_key as key from trigger_runs where id = ${run.triggerRunId}`;
    expect(row).toEqual({
      prompt: `Fix in ${REPO}#1 (issue, branch ): the flaky parser test`,
      key: `github:${delivery}`,
    });
    await eventually(
      async () => world.github.reactions(),
      (reactions) => reactions.some((reaction) => reaction.subject === 'issue_comment' && reaction.id === commentId),
      'the eyes reaction',
    );
    expect(world.github.reactions().find((reaction) => reaction.id === commentId)).toMatchObject({
      content: 'eyes',
      user: 'hub-bot[bot]',
    });
    // Audited as the GitHub login's action, naming the delivery.
    const [audited] = await world.sql<{ actorKind: string; subject: Record<string, string> }[]>`
      select actor_kind as "actorKind", subject from audit_events where subject ->> 'runId' = ${run.triggerRunId}`;
    expect(audited).toEqual({
      actorKind: 'github',
      subject: expect.objectContaining({
        trigger: 'fix-tests',
        actor: 'octocat',
        deliveryId: delivery,
        daemon: 'dev-box',
      }),
    });
    const events = await call(world.hubs[0]!, 'GET', '/api/v1/audit-events', { token: world.ctx.key });
    expect(events.status, events.text).toBe(200);
    expect(
      events.body.events.find((event: { subject: { runId?: string } }) => event.subject.runId === run.triggerRunId),
    ).toMatchObject({
      kind: 'run.dispatched',
      actor: { kind: 'github', name: 'octocat' },
      subject: { deliveryId: delivery, actor: 'octocat' },
    });
    const comment = await world.finalComment(1, 'fix-tests');
    expect(comment?.edits).toHaveLength(1);
    expect(comment?.edits[0]).toContain('⏳ Running `fix-tests` on the daemon `dev-box`.');
    expect(comment?.edits[0]).toContain(`/runs/${run.triggerRunId}`);
    expect(comment?.body).toMatch(/^✅ `fix-tests` succeeded after \d+ s on the daemon `dev-box`\./);
    expect(comment?.body).toContain('line 6\nline 7');
    expect(comment?.body).not.toContain('line 5\n');
    expect(comment?.body).toContain('line 25\n```');
    expect(world.github.checkRuns(REPO).filter((check) => check.head_sha === HEAD)).toEqual([]);
    expect(world.github.rejected).toEqual([]);
  });

  it('a mention on a pull request: a check run on its head commit whose conclusion is the failure', async () => {
    const commentId = world.github.addComment(REPO, 2, { body: '@hub-bot fix-tests fail=yes', login: 'octocat' });
    const delivery = await world.send(
      issueCommentCreated({
        repository: REPO,
        installationId: INSTALLATION,
        number: 2,
        commentId,
        body: '@hub-bot fix-tests fail=yes',
        login: 'octocat',
        pullRequest: true,
      }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'failed');
    expect(run.event).toMatchObject({ kind: 'pull_request', branch: 'fix-parser' });
    const check = await eventually(
      async () =>
        world.github.checkRuns(REPO).find((found) => found.name === 'hub/fix-tests' && found.status === 'completed'),
      (found) => found !== undefined,
      'the completed check run',
    );
    expect(check).toMatchObject({ head_sha: HEAD, conclusion: 'failure' });
    expect(check?.history).toEqual(['in_progress', 'completed']);
    expect(check?.details_url).toContain(`/runs/${run.triggerRunId}`);
    expect((await world.finalComment(2, 'fix-tests'))?.body).toContain('❌ `fix-tests` failed');
    expect(world.github.rejected).toEqual([]);
  });

  it('a label on an issue: the run with the title and body as its prompt, the person who added it as actor', async () => {
    const delivery = await world.send(
      issuesLabeled({
        repository: REPO,
        installationId: INSTALLATION,
        number: 3,
        title: 'Sort the backlog',
        body: 'Old issues first.',
        label: 'hub-triage',
        login: 'octocat',
      }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'succeeded');
    expect(run).toMatchObject({
      trigger: 'triage',
      actor: 'octocat',
      event: { trigger: 'github.label', label: 'hub-triage' },
    });
    const [row] = await world.sql<
      { prompt: string }[]
    >`select plan -> 0 ->> 'prompt' as prompt from trigger_runs where id = ${run.triggerRunId}`;
    expect(row?.prompt).toMatch(/^Triage \S+\/issues\/3: Sort the backlog\n\nOld issues first\.$/);
    expect((await world.finalComment(3, 'triage'))?.body).toContain('✅ `triage` succeeded');
    expect(world.github.reactions().some((reaction) => reaction.subject === 'issue' && reaction.id === 3)).toBe(true);
  });

  it('a label on a pull request whose step times out: the check run concludes timed_out', async () => {
    const delivery = await world.send(
      pullRequestLabeled({
        repository: REPO,
        installationId: INSTALLATION,
        number: 4,
        title: 'Slow work',
        headSha: 'b'.repeat(40),
        headRef: 'slow',
        label: 'hub-slow',
        login: 'octocat',
      }),
    );
    await world.runOf(delivery, (found) => found.status === 'timed_out');
    const check = await eventually(
      async () =>
        world.github.checkRuns(REPO).find((found) => found.name === 'hub/slow' && found.status === 'completed'),
      (found) => found !== undefined,
      'the completed check run',
    );
    expect(check).toMatchObject({ head_sha: 'b'.repeat(40), conclusion: 'timed_out' });
    expect((await world.finalComment(4, 'slow'))?.body).toContain('`slow` timed out');
  });

  it('a review comment mention, cancelled: the check run concludes cancelled', async () => {
    const commentId = world.github.addReviewComment(REPO, 2, {
      body: '@hub-bot fix-tests sleep_ms=60000',
      login: 'octocat',
    });
    const delivery = await world.send(
      pullRequestReviewCommentCreated({
        repository: REPO,
        installationId: INSTALLATION,
        number: 2,
        commentId,
        body: '@hub-bot fix-tests sleep_ms=60000',
        login: 'octocat',
        headSha: HEAD,
        headRef: 'fix-parser',
      }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'running');
    await eventually(
      async () => world.github.checkRuns(REPO).filter((found) => found.status === 'in_progress').length,
      (count) => count === 1,
      'the check run in progress',
    );
    const cancelled = await call(world.hubs[1]!, 'POST', `/api/v1/runs/${run.triggerRunId}/cancel`, {
      token: world.ctx.key,
    });
    expect(cancelled.status, cancelled.text).toBe(202);
    await world.runOf(delivery, (found) => found.status === 'cancelled');
    await eventually(
      async () =>
        world.github
          .checkRuns(REPO)
          .filter((found) => found.status === 'completed' && found.conclusion === 'cancelled'),
      (found) => found.length === 1,
      'the cancelled check run',
    );
    expect(
      world.github
        .reactions()
        .some((reaction) => reaction.subject === 'pull_request_review_comment' && reaction.id === commentId),
    ).toBe(true);
    expect(world.github.rejected).toEqual([]);
  });

  it('a redelivery, and the same delivery at both instances at once, start one run', async () => {
    const commentId = world.github.addComment(REPO, 1, { body: '@hub-bot fix-tests once', login: 'octocat' });
    const webhook = issueCommentCreated({
      repository: REPO,
      installationId: INSTALLATION,
      number: 1,
      commentId,
      body: '@hub-bot fix-tests once',
      login: 'octocat',
    });
    const delivery = randomUUID();
    await Promise.all([
      world.send(webhook, { hub: world.hubs[0], delivery }),
      world.send(webhook, { hub: world.hubs[1], delivery }),
      world.send(webhook, { hub: world.hubs[1], delivery }),
    ]);
    await world.runOf(delivery, (found) => found.status === 'succeeded');
    await world.send(webhook, { hub: world.hubs[0], delivery });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await world.runsOf(delivery)).toHaveLength(1);
    await world.finalComment(1, 'fix-tests');
    await eventually(
      async () => world.github.reactions().filter((reaction) => reaction.id === commentId),
      (found) => found.length > 0,
      'the eyes reaction',
    );
    expect(world.github.reactions().filter((reaction) => reaction.id === commentId)).toHaveLength(1);
    const [counted] = await world.sql<{ runs: number }[]>`
      select count(*)::int as runs from trigger_runs where delivery_key like ${`github:${delivery}%`}`;
    expect(counted?.runs).toBe(1);
  });
});
