// The pure parts of GitHub (DECISIONS.md, GitHub): the mention grammar, reading GitHub's real
// payloads (@octokit/webhooks-examples), what the hub writes back, and when it tries again.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../src/github/client.js';
import { isReadEvent, readEvent } from '../src/github/events.js';
import { findMention } from '../src/github/mention.js';
import {
  conclusionOf,
  endedComment,
  lastLines,
  startedComment,
  unknownTriggerReply,
} from '../src/github/report/bodies.js';

const examples = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as {
  name: string;
  examples: Record<string, unknown>[];
}[];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GitHub's payloads, edited field by field
type Payload = Record<string, any>;
const example = (event: string, action: string, pick: (payload: Payload) => boolean = () => true) => {
  const found = examples
    .find((entry) => entry.name === event)
    ?.examples.find((payload) => payload.action === action && pick(payload));
  if (found === undefined) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found) as Payload;
};

describe('the mention grammar', () => {
  it('reads the first whole-word mention in any case, the next word as the trigger and the rest as input', () => {
    expect(findMention('@hub-bot fix-tests branch=main please', 'hub-bot')).toEqual({
      trigger: 'fix-tests',
      input: 'branch=main please',
    });
    expect(findMention('Hey @Hub-Bot review\nlook at the parser\n', 'hub-bot')).toEqual({
      trigger: 'review',
      input: 'look at the parser',
    });
    expect(findMention('@hub-bot fix-tests.', 'hub-bot')).toEqual({ trigger: 'fix-tests', input: '' });
    expect(findMention('@hub-bot', 'hub-bot')).toEqual({ trigger: '', input: '' });
    expect(findMention('first @hub-bot a x, then @hub-bot b y', 'hub-bot')).toEqual({
      trigger: 'a',
      input: 'x, then @hub-bot b y',
    });
  });

  it('is not fooled by longer names, e-mail addresses, paths, quotes or code', () => {
    for (const text of [
      '@hub-bots fix',
      '@hub-bot_x fix',
      'mail me at me@hub-bot fix',
      'see github.com/@hub-bot fix',
      '> @hub-bot fix-tests\nthanks',
      '```\n@hub-bot fix-tests\n```',
      'no mention at all',
    ])
      expect(findMention(text, 'hub-bot'), text).toBeUndefined();
    expect(findMention('> quoted @hub-bot x\n\n@hub-bot real go', 'hub-bot')).toEqual({ trigger: 'real', input: 'go' });
  });

  it('finds any trigger name and input after the mention (property)', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/);
    const rest = fc.stringMatching(/^[a-z0-9= ]{0,40}$/).map((text) => text.trim());
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,20}$/), word, rest, (before, name, input) => {
        const found = findMention(`${before} @hub-bot ${name} ${input}`, 'hub-bot');
        expect(found).toEqual({ trigger: name, input });
      }),
    );
  });
});

describe("reading GitHub's payloads", () => {
  it('reads only the events and actions the decisions name', () => {
    expect(isReadEvent('issue_comment', { action: 'created' })).toBe(true);
    expect(isReadEvent('issue_comment', { action: 'edited' })).toBe(false);
    expect(isReadEvent('issues', { action: 'labeled' })).toBe(true);
    expect(isReadEvent('pull_request', { action: 'opened' })).toBe(true);
    expect(isReadEvent('pull_request', { action: 'closed' })).toBe(false);
    expect(isReadEvent('push', { ref: 'x' })).toBe(false);
    expect(isReadEvent('ping', { zen: 'x' })).toBe(false);
  });

  it('an issue comment: the comment, its author and the issue', () => {
    const payload = example('issue_comment', 'created', (candidate) => candidate.issue.pull_request === undefined);
    payload.installation = { id: 7 };
    payload.comment.body = '@hub-bot fix-tests now';
    const read = readEvent('issue_comment', payload, 'hub-bot');
    expect(read).toMatchObject({
      kind: 'mention',
      actor: payload.comment.user.login,
      text: '@hub-bot fix-tests now',
      subject: { subject: 'issue_comment', id: payload.comment.id },
      item: {
        installationId: 7,
        repository: payload.repository.full_name,
        number: payload.issue.number,
        kind: 'issue',
      },
    });
  });

  it('a comment on a pull request is about a pull request, whose head it does not carry', () => {
    // No example comments on a pull request: an issue comment's issue becomes one, as GitHub marks it.
    const payload = example('issue_comment', 'created');
    payload.installation = { id: 7 };
    payload.issue.pull_request = { url: `${payload.repository.url}/pulls/${payload.issue.number}` };
    const read = readEvent('issue_comment', payload, 'hub-bot');
    expect(read).toMatchObject({ kind: 'mention', item: { kind: 'pull_request' } });
    expect(read.kind === 'mention' && read.item.headSha).toBeUndefined();
  });

  it('a review comment and a labeled pull request carry the head', () => {
    const review = example('pull_request_review_comment', 'created');
    review.installation = { id: 7 };
    expect(readEvent('pull_request_review_comment', review, 'hub-bot')).toMatchObject({
      kind: 'mention',
      subject: { subject: 'pull_request_review_comment', id: review.comment.id },
      item: { kind: 'pull_request', headSha: review.pull_request.head.sha, headRef: review.pull_request.head.ref },
    });
    const labeled = example('pull_request', 'labeled');
    labeled.installation = { id: 7 };
    expect(readEvent('pull_request', labeled, 'hub-bot')).toMatchObject({
      kind: 'label',
      label: labeled.label.name,
      actor: labeled.sender.login,
      subject: { subject: 'issue', number: labeled.pull_request.number },
      item: { kind: 'pull_request', title: labeled.pull_request.title, headSha: labeled.pull_request.head.sha },
    });
  });

  it("an opened issue's body is read for a mention; a label on an issue is a label event", () => {
    const opened = example('issues', 'opened');
    opened.installation = { id: 7 };
    opened.issue.body = 'Please @hub-bot triage';
    expect(readEvent('issues', opened, 'hub-bot')).toMatchObject({
      kind: 'mention',
      actor: opened.issue.user.login,
      text: 'Please @hub-bot triage',
      subject: { subject: 'issue', number: opened.issue.number },
    });
    const labeled = example('issues', 'labeled');
    labeled.installation = { id: 7 };
    expect(readEvent('issues', labeled, 'hub-bot')).toMatchObject({ kind: 'label', item: { kind: 'issue' } });
  });

  it("ignores the app's own comments and events without an installation", () => {
    const payload = example('issue_comment', 'created');
    payload.installation = { id: 7 };
    payload.comment.user = { ...payload.comment.user, login: 'hub-bot[bot]', type: 'Bot' };
    expect(readEvent('issue_comment', payload, 'hub-bot')).toEqual({
      kind: 'ignored',
      reason: "the app's own comment",
    });
    const bare = example('issue_comment', 'created');
    delete bare.installation;
    expect(readEvent('issue_comment', bare, 'hub-bot')).toEqual({ kind: 'ignored', reason: 'no installation' });
  });
});

describe('what the hub writes back', () => {
  const facts = {
    triggerName: 'fix-tests',
    daemon: 'dev-box',
    runUrl: 'https://hub.example.com/runs/1',
    status: 'failed',
    message: null,
    durationMs: 95_000,
    tail: Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n\u001b[31mred\u001b[0m\n',
  };

  it('the started comment names the trigger, the daemon and the run', () => {
    expect(startedComment({ ...facts, status: 'running' })).toBe(
      '⏳ Running `fix-tests` on the daemon `dev-box`. [Follow the run](https://hub.example.com/runs/1).',
    );
  });

  it('the final comment: outcome, duration, the last 20 lines in a collapsed block, the link', () => {
    const body = endedComment(facts);
    expect(body).toContain('❌ `fix-tests` failed after 1 min 35 s on the daemon `dev-box`.');
    expect(body).toContain('<details><summary>The last lines of its output</summary>');
    expect(body).toContain('line 12\n');
    expect(body).not.toContain('line 11\n');
    expect(body).toContain('red\n```');
    expect(body).toContain('[The run](https://hub.example.com/runs/1)');
    expect(lastLines('a```b', 5)).toBe('a```b');
    expect(endedComment({ ...facts, tail: 'x ``` y' })).toContain('````\nx ``` y\n````');
  });

  it('the check conclusion is the real outcome', () => {
    expect(['succeeded', 'failed', 'timed_out', 'cancelled'].map(conclusionOf)).toEqual([
      'success',
      'failure',
      'timed_out',
      'cancelled',
    ]);
  });

  it('an unknown trigger name gets the list and a suggestion', () => {
    expect(unknownTriggerReply('octocat', 'fix-test', ['fix-tests', 'review'], 'fix-tests', 'hub-bot')).toBe(
      "@octocat `fix-test` is not a trigger of this repository's project. Did you mean `fix-tests`? Its mention triggers: `fix-tests`, `review`. Mention one as `@hub-bot <trigger> [inputs] [text]`.",
    );
  });
});

describe('when a failed report is tried again', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const limited = (headers: Record<string, string>, status = 403) =>
    Object.assign(new Error('API rate limit exceeded'), { status, response: { headers } });

  it("waits for GitHub's reset or Retry-After on a rate limit", () => {
    const reset = limited({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 120) });
    expect(failureOf(reset, 0, now).delayedUntil).toEqual(new Date(now + 121_000));
    expect(failureOf(limited({ 'retry-after': '30' }, 429), 3, now).retryAt).toEqual(new Date(now + 30_000));
  });

  it('backs off from about 5 s to at most 10 min otherwise, and gives up after 20 attempts', () => {
    const down = Object.assign(new Error('Bad Gateway'), { status: 502 });
    const first = failureOf(down, 0, now).retryAt.getTime() - now;
    expect(first).toBeGreaterThanOrEqual(4_000);
    expect(first).toBeLessThanOrEqual(6_000);
    expect(failureOf(down, 15, now).retryAt.getTime() - now).toBeLessThanOrEqual(720_000);
    expect(failureOf(down, 19, now).error).toContain('given up after 20 attempts');
    expect(failureOf(down, 0, now).delayedUntil).toBeUndefined();
  });
});
