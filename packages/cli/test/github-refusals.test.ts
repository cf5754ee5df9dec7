// GitHub's refusals and failures end to end (DECISIONS.md, GitHub): an unknown trigger name, an
// actor not allowed, an unlinked repository or installation, the app's own comment and an offline
// daemon, each with the reply the decisions describe or none; and GitHub failing (502s, then a
// rate limit): the run is unaffected, and the report arrives after the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCommentCreated } from '../../server/test/support/github/index.js';
import { eventually } from '../../server/test/support/poll.js';
import { INSTALLATION, REPO, startGitHubWorld, type GitHubWorld } from './support/github-world.js';

describe('GitHub refusals and failures: two hubs, the reference daemon, the GitHub stand-in', () => {
  let world: GitHubWorld;
  const mention = (
    number: number,
    body: string,
    options: { login?: string; repository?: string; installationId?: number; appComment?: boolean } = {},
  ) => {
    const repository = options.repository ?? REPO;
    const commentId = world.github.addComment(repository, number, { body, login: options.login ?? 'octocat' });
    return issueCommentCreated({
      repository,
      installationId: options.installationId ?? INSTALLATION,
      number,
      commentId,
      body,
      login: options.login ?? 'octocat',
      ...(options.appComment === true ? { appComment: true } : {}),
    });
  };
  const replies = (number: number, text: string) =>
    eventually(
      async () => world.ours(number).filter((comment) => comment.body.includes(text)),
      (found) => found.length > 0,
      `a reply on #${number} saying "${text}"`,
    );

  beforeAll(async () => {
    world = await startGitHubWorld();
    world.github.addIssue(REPO, { number: 10, title: 'Refusals', body: '' });
    world.github.addIssue(REPO, { number: 11, title: 'Not allowed', body: '' });
    world.github.addIssue(REPO, { number: 12, title: 'Far away', body: '' });
    world.github.addIssue(REPO, { number: 13, title: 'GitHub is down', body: '' });
    world.github.addInstallation({
      id: 78,
      account: { login: 'other-org', type: 'Organization' },
      repositories: ['other-org/site'],
    });
    world.github.addIssue('other-org/site', { number: 1, title: 'Elsewhere', body: '' });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('an unknown trigger name: a reply with the mention triggers and "did you mean", and no run', async () => {
    const delivery = await world.send(mention(10, '@hub-bot fix-test please'));
    expect(await world.processed(delivery)).toBe('unknown trigger');
    const [reply] = await replies(10, '`fix-test` is not a trigger');
    expect(reply?.body).toBe(
      "@octocat `fix-test` is not a trigger of this repository's project. Did you mean `fix-tests`? Its mention triggers: `fix-tests`, `strict`, `far`. Mention one as `@hub-bot <trigger> [inputs] [text]`.",
    );
    expect(await world.runsOf(delivery)).toEqual([]);
    const bare = await world.send(mention(10, 'Thanks @hub-bot'));
    expect(await world.processed(bare)).toBe('unknown trigger');
    await replies(10, 'No trigger was named');
  });

  it('an actor not in from_users: a reply saying so, and no run', async () => {
    const delivery = await world.send(mention(11, '@hub-bot strict now'));
    expect(await world.processed(delivery)).toBe('refused actor');
    const [reply] = await replies(11, 'you are not allowed to run `strict`');
    expect(reply?.body).toContain('@octocat');
    expect(await world.runsOf(delivery)).toEqual([]);
    const stranger = await world.send(mention(11, '@hub-bot fix-tests', { login: 'mallory' }));
    expect(await world.processed(stranger)).toBe('refused actor');
    await replies(11, '@mallory you are not allowed to run `fix-tests`');
  });

  it("an unlinked repository or installation, and the app's own comment: 202, nothing runs, no reply", async () => {
    const elsewhere = await world.send(
      mention(1, '@hub-bot fix-tests', { repository: 'other-org/site', installationId: 78 }),
    );
    expect(await world.processed(elsewhere)).toBe('ignored: no project names the repository');
    const otherInstallation = await world.send(mention(10, '@hub-bot fix-tests', { installationId: 78 }));
    expect(await world.processed(otherInstallation)).toBe(
      "ignored: the installation is not linked to the project's organization",
    );
    const own = await world.send(mention(10, '@hub-bot fix-tests', { appComment: true }));
    expect(await world.processed(own)).toBe("ignored: the app's own comment");
    for (const delivery of [elsewhere, otherInstallation, own]) expect(await world.runsOf(delivery)).toEqual([]);
    // The replies above are the only comments the app wrote on #10; none on the other repository.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(world.github.comments('other-org/site', 1).filter((comment) => comment.user === 'hub-bot[bot]')).toEqual([]);
    expect(world.ours(10).every((comment) => /is not a trigger|No trigger was named/.test(comment.body))).toBe(true);
  });

  it('an offline daemon: the run is recorded as failed, and the comment says which daemon', async () => {
    const delivery = await world.send(mention(12, '@hub-bot far'));
    const run = await world.runOf(delivery, (found) => found.status === 'failed');
    expect(run.message).toBe('The run did not start: the daemon "sleepy-box" was offline.');
    // Reported once, as ended: the comment is made with the outcome.
    const comment = await eventually(
      async () => world.ours(12).find((found) => found.body.includes('`far`')),
      (found) => found !== undefined,
      'the comment of far',
    );
    expect(comment?.edits).toEqual([]);
    expect(comment?.body).toContain('❌ `far` failed');
    expect(comment?.body).toContain('the daemon "sleepy-box" was offline');
  });

  it('an input the trigger refuses: the run is recorded as failed, and the comment says why', async () => {
    world.github.addIssue(REPO, { number: 14, title: 'Bad input', body: '' });
    const delivery = await world.send(mention(14, '@hub-bot fix-tests fail=maybe'));
    const run = await world.runOf(delivery, (found) => found.status === 'failed');
    expect(run.message).toMatch(/^The run did not start: its input was refused: .*fail/);
    const comment = await eventually(
      async () => world.ours(14).find((found) => found.body.includes('`fix-tests`')),
      (found) => found !== undefined,
      'the comment of the refused input',
    );
    expect(comment?.body).toContain('❌ `fix-tests` failed');
    expect(comment?.body).toContain('its input was refused');
  });

  it('GitHub failing (a 502, then a rate limit): the run is unaffected, the report arrives after the limit', async () => {
    const comments = /\/issues\/13\/comments$/;
    // A 502 (Octokit tries again a second later), then a rate limit whose reset is still ahead.
    world.github.failNext({ match: comments, status: 502, times: 1 });
    const resetAt = Math.floor(Date.now() / 1000) + 6;
    world.github.rateLimitNext({ match: comments, times: 1, resetAt });
    const delivery = await world.send(mention(13, '@hub-bot fix-tests lines=2'));
    const run = await world.runOf(delivery, (found) => found.status === 'succeeded');
    const delayed = await eventually(
      async () =>
        (
          await world.sql<{ delayedUntil: Date | null; lastError: string | null }[]>`
            select delayed_until as "delayedUntil", last_error as "lastError" from github_runs
            where trigger_run_id = ${run.triggerRunId}`
        )[0],
      (row) => row?.delayedUntil !== null && row?.delayedUntil !== undefined,
      'the report delayed by the rate limit',
    );
    expect(delayed?.delayedUntil?.getTime()).toBeGreaterThanOrEqual(resetAt * 1000);
    expect(delayed?.lastError).toContain('rate limit');
    expect(world.ours(13)).toEqual([]);
    const comment = await eventually(
      async () => world.ours(13).find((found) => found.body.includes('`fix-tests`')),
      (found) => found !== undefined,
      'the comment after the rate limit',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(resetAt * 1000);
    expect(comment?.body).toContain('✅ `fix-tests` succeeded');
    // GitHub has the comment a moment before the hub has recorded that it is sent.
    const after = await eventually(
      async () =>
        (
          await world.sql<{ delayedUntil: Date | null; ended: Date | null }[]>`
            select delayed_until as "delayedUntil", ended_reported_at as ended from github_runs
            where trigger_run_id = ${run.triggerRunId}`
        )[0],
      (row) => row?.ended !== null && row?.ended !== undefined,
      'the end recorded as reported',
    );
    expect(after?.delayedUntil).toBeNull();
    // What GitHub saw: the 502, the request after it (rate-limited), and the one after the reset.
    expect(
      world.github.requests
        .filter((request) => request.method === 'POST' && comments.test(request.path))
        .map((request) => request.status),
    ).toEqual([502, 403, 201]);
    expect(world.github.rejected).toEqual([]);
  }, 60_000);
});
