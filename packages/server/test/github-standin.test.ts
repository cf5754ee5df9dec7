// The GitHub stand-in refuses what GitHub would refuse, checked against GitHub's own description,
// and answers Octokit's well-formed calls as GitHub does, in github.com's and GHES's layouts.
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { throttling } from '@octokit/plugin-throttling';
import { verify } from '@octokit/webhooks-methods';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deliver,
  githubDescription,
  issueCommentCreated,
  issuesLabeled,
  issuesOpened,
  pullRequestLabeled,
  pullRequestOpened,
  pullRequestReviewCommentCreated,
  signedDelivery,
  startGitHubStandIn,
  type GitHubStandIn,
  type WebhookEvent,
} from './support/github/index.js';

const APP_ID = '12345';

function jwt(privateKeyPem: string, claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(privateKeyPem, 'base64url')}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function seed(gh: GitHubStandIn): void {
  gh.addInstallation({
    id: 42,
    account: { login: 'octo-org', type: 'Organization' },
    repositories: ['octo-org/app'],
    users: ['alice'],
  });
  gh.addInstallation({ id: 43, account: { login: 'other', type: 'User' }, repositories: ['other/thing'] });
  gh.addIssue('octo-org/app', { number: 7, title: 'Crash on start', body: 'It crashes.' });
  gh.addPullRequest('octo-org/app', { number: 8, title: 'Fix crash', headSha: 'a'.repeat(40), headRef: 'fix-crash' });
  gh.addIssue('other/thing', { number: 1, title: 'Elsewhere' });
}

async function call(gh: GitHubStandIn, method: string, path: string, init: { token?: string; body?: unknown } = {}) {
  const response = await fetch(`${gh.apiUrl}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      'content-type': 'application/json',
      ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function appOctokit(gh: GitHubStandIn, installationId?: number): Octokit {
  return new Octokit({
    baseUrl: gh.apiUrl,
    authStrategy: createAppAuth,
    auth: { appId: APP_ID, privateKey: gh.privateKeyPem, ...(installationId === undefined ? {} : { installationId }) },
  });
}

async function installationToken(gh: GitHubStandIn, installationId: number): Promise<string> {
  const { data } = await appOctokit(gh).request('POST /app/installations/{installation_id}/access_tokens', {
    installation_id: installationId,
  });
  return data.token;
}

describe('the GitHub stand-in refuses what GitHub would', () => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn({ appId: APP_ID, slug: 'hub-bot' });
    seed(gh);
  });
  afterAll(() => gh.close());

  it('a path that is no operation of the description: 404, recorded', async () => {
    const token = await installationToken(gh, 42);
    const before = gh.rejected.length;
    const answer = await call(gh, 'POST', '/repos/octo-org/app/issues/7/commentz', { token, body: { body: 'hi' } });
    expect(answer).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    expect(gh.rejected.slice(before)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/repos/octo-org/app/issues/7/commentz', status: 404 }),
    ]);
  });

  it.each([
    ['a method the path does not have', 'DELETE', '/repos/octo-org/app/check-runs', undefined, 404],
    ['a path parameter failing its schema', 'GET', '/repos/octo-org/app/pulls/eight', undefined, 404],
    [
      'a reaction GitHub does not know',
      'POST',
      '/repos/octo-org/app/issues/7/reactions',
      { content: 'rocketship' },
      422,
    ],
    ['a comment without its body', 'POST', '/repos/octo-org/app/issues/7/comments', { text: 'hi' }, 422],
    [
      'a check run completed with no conclusion',
      'PATCH',
      '/repos/octo-org/app/check-runs/1',
      { status: 'completed' },
      422,
    ],
  ])('%s', async (_case, method, path, body, status) => {
    const token = await installationToken(gh, 42);
    const before = gh.rejected.length;
    const answer = await call(gh, method, path, { token, body });
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ message: expect.any(String), documentation_url: expect.any(String) });
    expect(gh.rejected.slice(before)).toHaveLength(1);
  });

  it('names the failing field of a body, as GitHub does', async () => {
    const token = await installationToken(gh, 42);
    const answer = await call(gh, 'POST', '/repos/octo-org/app/issues/7/reactions', {
      token,
      body: { content: 'rocketship' },
    });
    expect(answer.body.message).toMatch(/^Invalid request\.\n\n.*content.*rocket/s);
    expect(gh.rejected.at(-1)).toMatchObject({ operationId: 'reactions/create-for-issue', status: 422 });
  });

  it.each([
    ['signed with another key', () => jwt(otherKey(), claims()), /could not be decoded/],
    ['another app as issuer', (pem: string) => jwt(pem, claims({ iss: 999 })), /Issuer/],
    ['alive longer than ten minutes', (pem: string) => jwt(pem, claims({ exp: nowSeconds() + 660 })), /too far/],
    ['expired', (pem: string) => jwt(pem, claims({ iat: nowSeconds() - 700, exp: nowSeconds() - 100 })), /exp/],
    ['issued in the future', (pem: string) => jwt(pem, claims({ iat: nowSeconds() + 120 })), /iat/],
    ['not a JWT at all', () => 'ghs_notajwt', /could not be decoded/],
  ])('an app JWT %s: 401', async (_case, make, message) => {
    const before = gh.rejected.length;
    const answer = await call(gh, 'GET', '/app', { token: make(gh.privateKeyPem) });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toMatch(message);
    expect(gh.rejected.slice(before)).toHaveLength(1);
  });

  it('accepts a JWT whose iss is the app id as a string or a number', async () => {
    for (const iss of [APP_ID, Number(APP_ID)]) {
      const answer = await call(gh, 'GET', '/app', { token: jwt(gh.privateKeyPem, claims({ iss })) });
      expect(answer).toMatchObject({ status: 200, body: { id: 12345, slug: 'hub-bot' } });
    }
  });

  it("an installation token on another installation's repository: 404", async () => {
    const token = await installationToken(gh, 43);
    const before = gh.rejected.length;
    const answer = await call(gh, 'POST', '/repos/octo-org/app/issues/7/comments', { token, body: { body: 'hi' } });
    expect(answer).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    expect(gh.rejected.slice(before)).toEqual([
      expect.objectContaining({ why: expect.stringMatching(/installation 43/) }),
    ]);
  });

  it.each([
    ['no credential on a repository', 'POST', '/repos/octo-org/app/issues/7/comments', 404],
    ['no credential on the app', 'GET', '/app', 401],
    ['no credential on the user', 'GET', '/user/installations', 401],
  ])('%s', async (_case, method, path, status) => {
    const before = gh.rejected.length;
    const answer = await call(gh, method, path, { body: method === 'POST' ? { body: 'hi' } : undefined });
    expect(answer.status).toBe(status);
    expect(gh.rejected.slice(before)).toHaveLength(1);
  });

  it('a token it never issued: 401 Bad credentials', async () => {
    const answer = await call(gh, 'GET', '/repos/octo-org/app/pulls/8', { token: 'ghs_madeup' });
    expect(answer).toMatchObject({ status: 401, body: { message: 'Bad credentials' } });
  });

  it('an installation token on /user/installations: 403', async () => {
    const answer = await call(gh, 'GET', '/user/installations', { token: await installationToken(gh, 42) });
    expect(answer.status).toBe(403);
  });

  function claims(overrides: Record<string, unknown> = {}) {
    return { iat: nowSeconds() - 30, exp: nowSeconds() + 570, iss: APP_ID, ...overrides };
  }
});

let spareKey: string | undefined;
function otherKey(): string {
  spareKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  return spareKey;
}

describe.each([
  ['github.com', false],
  ['GitHub Enterprise Server', true],
])('the GitHub stand-in answers Octokit as %s does', (_layout, enterprise) => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn({ appId: APP_ID, slug: 'hub-bot', enterprise });
    seed(gh);
  });
  afterAll(() => gh.close());

  it('serves the API where the layout puts it', () => {
    expect(gh.apiUrl).toBe(enterprise ? `${gh.webUrl}/api/v3` : gh.webUrl);
    expect(gh.description.file).toMatch(enterprise ? /^ghes-3\.\d+\.json$/ : /^api\.github\.com\.json$/);
  });

  it('the app, its installation, and a token that expires in an hour', async () => {
    const app = appOctokit(gh);
    const { data: me } = await app.request('GET /app');
    expect(me).toMatchObject({ id: 12345, slug: 'hub-bot', client_id: gh.clientId });
    const { data: installation } = await app.request('GET /app/installations/{installation_id}', {
      installation_id: 42,
    });
    expect(installation).toMatchObject({ id: 42, account: { login: 'octo-org', type: 'Organization' } });
    const { status, data } = await app.request('POST /app/installations/{installation_id}/access_tokens', {
      installation_id: 42,
    });
    expect(status).toBe(201);
    expect(data.token).toMatch(/^ghs_/);
    expect(Date.parse(data.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(data.permissions).toMatchObject({ issues: 'write', checks: 'write' });
    expect(gh.rejected).toEqual([]);
  });

  it('comments, edits, reactions and check runs, as the installation', async () => {
    const octokit = appOctokit(gh, 42);
    const repo = { owner: 'octo-org', repo: 'app' };
    const userComment = gh.addComment('octo-org/app', 7, { body: '@hub-bot fix it', login: 'alice' });
    const reviewComment = gh.addReviewComment('octo-org/app', 8, { body: '@hub-bot look', login: 'alice' });

    const created = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repo,
      issue_number: 7,
      body: 'Running',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ body: 'Running', user: { login: 'hub-bot[bot]', type: 'Bot' } });
    const updated = await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...repo,
      comment_id: created.data.id,
      body: 'Done',
    });
    expect(updated).toMatchObject({ status: 200, data: { id: created.data.id, body: 'Done' } });
    const read = await octokit.request('GET /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...repo,
      comment_id: created.data.id,
    });
    expect(read.data.body).toBe('Done');

    const reacted = await octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
      ...repo,
      comment_id: userComment,
      content: 'eyes',
    });
    expect(reacted.status).toBe(201);
    const again = await octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
      ...repo,
      comment_id: userComment,
      content: 'eyes',
    });
    expect(again).toMatchObject({ status: 200, data: { id: reacted.data.id } });
    await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', {
      ...repo,
      issue_number: 8,
      content: 'eyes',
    });
    await octokit.request('POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions', {
      ...repo,
      comment_id: reviewComment,
      content: 'eyes',
    });

    const pull = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...repo, pull_number: 8 });
    expect(pull.data).toMatchObject({ number: 8, title: 'Fix crash', head: { sha: 'a'.repeat(40), ref: 'fix-crash' } });
    const check = await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...repo,
      name: 'hub/fix',
      head_sha: pull.data.head.sha,
      status: 'in_progress',
      details_url: 'https://hub.example/runs/1',
    });
    expect(check).toMatchObject({ status: 201, data: { name: 'hub/fix', status: 'in_progress', conclusion: null } });
    const done = await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      ...repo,
      check_run_id: check.data.id,
      status: 'completed',
      conclusion: 'success',
      output: { title: 'fix: success', summary: 'It ran.' },
    });
    expect(done).toMatchObject({ status: 200, data: { status: 'completed', conclusion: 'success' } });

    expect(gh.rejected).toEqual([]);
    expect(gh.comments('octo-org/app', 7)).toEqual([
      { id: userComment, body: '@hub-bot fix it', user: 'alice', edits: [] },
      { id: created.data.id, body: 'Done', user: 'hub-bot[bot]', edits: ['Running'] },
    ]);
    expect(gh.reactions().map(({ subject, id, content }) => ({ subject, id, content }))).toEqual([
      { subject: 'issue_comment', id: userComment, content: 'eyes' },
      { subject: 'issue', id: 8, content: 'eyes' },
      { subject: 'pull_request_review_comment', id: reviewComment, content: 'eyes' },
    ]);
    expect(gh.checkRuns('octo-org/app')).toEqual([
      expect.objectContaining({
        id: check.data.id,
        name: 'hub/fix',
        head_sha: 'a'.repeat(40),
        status: 'completed',
        conclusion: 'success',
        history: ['in_progress', 'completed'],
      }),
    ]);
    expect(gh.requests.map((r) => r.operationId)).toContain('checks/update');
  });
});

describe.each([
  ['github.com', false],
  ['GitHub Enterprise Server', true],
])('the GitHub stand-in: user authorization during installation, as %s', (_layout, enterprise) => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn({
      appId: APP_ID,
      slug: 'hub-bot',
      enterprise,
      setupUrl: 'http://hub.test/github/setup',
    });
    seed(gh);
  });
  afterAll(() => gh.close());

  async function exchange(code: string, json = true) {
    const response = await fetch(`${gh.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: json ? 'application/json' : '*/*', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: gh.clientId, client_secret: gh.clientSecret, code }).toString(),
    });
    return json
      ? ((await response.json()) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(await response.text()));
  }

  it('install page → setup URL with the installation and a code → a user token → the installations alice reaches', async () => {
    gh.authorizeUser('alice');
    expect(gh.installUrl).toBe(`${gh.webUrl}/${enterprise ? 'github-apps' : 'apps'}/hub-bot/installations/new`);
    const page = await fetch(`${gh.installUrl}?state=s1`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    const back = new URL(page.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe('http://hub.test/github/setup');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      installation_id: '42',
      setup_action: 'install',
      state: 's1',
    });

    const token = await exchange(back.searchParams.get('code') ?? '');
    expect(token).toMatchObject({ access_token: expect.stringMatching(/^ghu_/), token_type: 'bearer' });
    const user = new Octokit({ baseUrl: gh.apiUrl, auth: token.access_token });
    const { data } = await user.request('GET /user/installations');
    expect(data.total_count).toBe(1);
    expect(data.installations[0]).toMatchObject({ id: 42, account: { login: 'octo-org' } });
    expect(gh.rejected).toEqual([]);
  });

  it('authorize → redirect_uri with code and state; a code serves once; a form answer without Accept: json', async () => {
    gh.authorizeUser('bob');
    const query = new URLSearchParams({ client_id: gh.clientId, redirect_uri: 'http://hub.test/cb', state: 'xyz' });
    const page = await fetch(`${gh.webUrl}/login/oauth/authorize?${query}`, { redirect: 'manual' });
    const back = new URL(page.headers.get('location') ?? '');
    expect(back.searchParams.get('state')).toBe('xyz');
    const code = back.searchParams.get('code') ?? '';
    expect(await exchange(code, false)).toMatchObject({ access_token: expect.stringMatching(/^ghu_/), scope: '' });
    const user = new Octokit({ baseUrl: gh.apiUrl, auth: (await exchange(code)).access_token });
    expect(gh.rejected.at(-1)).toMatchObject({
      path: '/login/oauth/access_token',
      why: expect.stringMatching(/bad_verification_code/),
    });
    await expect(user.request('GET /user/installations')).rejects.toMatchObject({ status: 401 });
  });

  it("the other layout's install page is not there", async () => {
    const other = `${gh.webUrl}/${enterprise ? 'apps' : 'github-apps'}/hub-bot/installations/new`;
    const before = gh.rejected.length;
    expect((await fetch(other, { redirect: 'manual' })).status).toBe(404);
    expect(gh.rejected.slice(before)).toHaveLength(1);
  });

  it('refuses a wrong client secret with an OAuth error', async () => {
    const response = await fetch(`${gh.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: gh.clientId, client_secret: 'nope', code: 'abc' }),
    });
    expect(await response.json()).toMatchObject({ error: 'incorrect_client_credentials' });
  });
});

describe('the GitHub stand-in: GitHub down and rate limits, as asked', () => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn({ appId: APP_ID, slug: 'hub-bot' });
    seed(gh);
  });
  afterAll(() => gh.close());

  it('failNext: the matching requests fail that many times, then succeed; nothing is rejected', async () => {
    const token = await installationToken(gh, 42);
    gh.failNext({ match: /\/pulls\/8$/, status: 502, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push((await call(gh, 'GET', '/repos/octo-org/app/pulls/8', { token })).status);
    expect(statuses).toEqual([502, 502, 200]);
    expect(gh.requests.slice(-3).map((r) => [r.operationId, r.status])).toEqual([
      ['pulls/get', 502],
      ['pulls/get', 502],
      ['pulls/get', 200],
    ]);
    expect(gh.rejected).toEqual([]);
  });

  it('failNext without match: the next request, whichever it is', async () => {
    const token = await installationToken(gh, 42);
    gh.failNext({ status: 500 });
    expect((await call(gh, 'GET', '/repos/octo-org/app/pulls/8', { token })).status).toBe(500);
    expect((await call(gh, 'GET', '/repos/octo-org/app/pulls/8', { token })).status).toBe(200);
  });

  it('a refusal wins over an injected failure: a bad request is rejected, not failed', async () => {
    const token = await installationToken(gh, 42);
    gh.failNext({ status: 502 });
    const answer = await call(gh, 'POST', '/repos/octo-org/app/issues/7/reactions', { token, body: { content: 'x' } });
    expect(answer.status).toBe(422);
    expect(gh.rejected).toHaveLength(1);
    gh.rejected.length = 0;
    expect((await call(gh, 'GET', '/repos/octo-org/app/pulls/8', { token })).status).toBe(502);
  });

  it("rateLimitNext: GitHub's primary rate limit, 403 with x-ratelimit-remaining 0 until x-ratelimit-reset", async () => {
    const token = await installationToken(gh, 42);
    const resetAt = nowSeconds() + 1;
    gh.rateLimitNext({ match: /check-runs/, times: 1, resetAt });
    const response = await fetch(`${gh.apiUrl}/repos/octo-org/app/check-runs`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hub/fix', head_sha: 'a'.repeat(40) }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(resetAt));
    expect(await response.json()).toMatchObject({ message: 'API rate limit exceeded for installation ID 42.' });
  });

  it.each<[string, { retryAfter?: number; status?: 403 | 429 }, string]>([
    ['primary, 403', {}, 'onRateLimit'],
    ['secondary, 429 with Retry-After', { retryAfter: 1, status: 429 }, 'onSecondaryRateLimit'],
  ])("Octokit's throttling sees a %s rate limit, waits, and succeeds", async (_case, limit, expected) => {
    const seen: string[] = [];
    const Throttled = Octokit.plugin(throttling);
    const octokit = new Throttled({
      baseUrl: gh.apiUrl,
      authStrategy: createAppAuth,
      auth: { appId: APP_ID, privateKey: gh.privateKeyPem, installationId: 42 },
      throttle: {
        onRateLimit: (retryAfter: number) => (seen.push(`onRateLimit ${retryAfter}`), true),
        onSecondaryRateLimit: (retryAfter: number) => (seen.push(`onSecondaryRateLimit ${retryAfter}`), true),
      },
    });
    await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: 'octo-org',
      repo: 'app',
      pull_number: 8,
    });
    gh.rateLimitNext({
      match: /pulls/,
      times: 1,
      ...limit,
      resetAt: nowSeconds() + (limit.retryAfter === undefined ? 1 : 60),
    });
    const { status } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: 'octo-org',
      repo: 'app',
      pull_number: 8,
    });
    expect(status).toBe(200);
    expect(seen).toEqual([expect.stringMatching(new RegExp(`^${expected} [0-2]$`))]);
    expect(gh.rejected).toEqual([]);
  });
});

describe("webhook payloads: GitHub's own, edited consistently, signed as GitHub signs", () => {
  const base = { repository: 'octo-org/app', installationId: 42, login: 'alice' };
  const cases: [string, WebhookEvent, string, 'issue' | 'pull_request'][] = [
    [
      'issue_comment on an issue',
      issueCommentCreated({ ...base, number: 7, body: '@hub-bot fix it' }),
      'created',
      'issue',
    ],
    [
      'issue_comment on a pull request',
      issueCommentCreated({ ...base, number: 8, body: '@hub-bot fix it', pullRequest: true }),
      'created',
      'issue',
    ],
    [
      'pull_request_review_comment',
      pullRequestReviewCommentCreated({
        ...base,
        number: 8,
        body: '@hub-bot look',
        headSha: 'b'.repeat(40),
        headRef: 'x',
      }),
      'created',
      'pull_request',
    ],
    ['issues opened', issuesOpened({ ...base, number: 7, title: 'Crash', body: 'It crashes.' }), 'opened', 'issue'],
    ['issues labeled', issuesLabeled({ ...base, number: 7, title: 'Crash', label: 'hub:fix' }), 'labeled', 'issue'],
    [
      'pull_request opened',
      pullRequestOpened({ ...base, number: 8, title: 'Fix', headSha: 'b'.repeat(40), headRef: 'fix' }),
      'opened',
      'pull_request',
    ],
    [
      'pull_request labeled',
      pullRequestLabeled({
        ...base,
        number: 8,
        title: 'Fix',
        label: 'hub:review',
        headSha: 'b'.repeat(40),
        headRef: 'fix',
      }),
      'labeled',
      'pull_request',
    ],
  ];

  it.each(cases)('%s: the repository, installation, sender and thread agree', (_case, { payload }, action, thread) => {
    expect(payload).toMatchObject({
      action,
      repository: { full_name: 'octo-org/app', name: 'app', owner: { login: 'octo-org', type: 'Organization' } },
      organization: { login: 'octo-org' },
      installation: { id: 42 },
      sender: { login: 'alice' },
    });
    const subject = payload[thread] as Record<string, unknown>;
    expect(subject.html_url).toMatch(
      new RegExp(`^https://github\\.com/octo-org/app/(issues|pull)/${String(subject.number)}$`),
    );
    expect(subject.url).toMatch(
      new RegExp(`^https://api\\.github\\.com/repos/octo-org/app/(issues|pulls)/${String(subject.number)}$`),
    );
    expect(JSON.stringify(payload)).not.toMatch(/Codertocat|Hello-World/);
  });

  it("a comment on a pull request is an issue_comment whose issue has pull_request; the app's own is a Bot's", () => {
    const onPull = issueCommentCreated({ ...base, number: 8, body: 'hi', pullRequest: true, commentId: 99 }).payload;
    expect(onPull).toMatchObject({
      issue: {
        number: 8,
        html_url: 'https://github.com/octo-org/app/pull/8',
        pull_request: { html_url: 'https://github.com/octo-org/app/pull/8' },
      },
      comment: {
        id: 99,
        body: 'hi',
        user: { login: 'alice', type: 'User' },
        html_url: 'https://github.com/octo-org/app/pull/8#issuecomment-99',
      },
    });
    expect(issueCommentCreated({ ...base, number: 7, body: 'hi' }).payload.issue).not.toHaveProperty('pull_request');
    const own = issueCommentCreated({ ...base, number: 7, body: 'Running', appComment: true }).payload;
    expect(own).toMatchObject({
      comment: { user: { login: 'hub-bot[bot]', type: 'Bot' }, performed_via_github_app: { slug: 'hub-bot' } },
      sender: { login: 'hub-bot[bot]', type: 'Bot' },
    });
  });

  it('labels and pull request heads are what the case says', () => {
    const labeled = pullRequestLabeled({
      ...base,
      number: 8,
      label: 'hub:review',
      headSha: 'c'.repeat(40),
      headRef: 'topic',
    });
    expect(labeled.payload).toMatchObject({
      number: 8,
      label: { name: 'hub:review' },
      pull_request: {
        number: 8,
        head: { sha: 'c'.repeat(40), ref: 'topic', repo: { full_name: 'octo-org/app' } },
        labels: [{ name: 'hub:review' }],
      },
    });
  });

  it.each(cases)("%s: the payload is what GitHub's description of the webhook says", (_case, { event, payload }) => {
    const description = githubDescription(false);
    expect(description.webhookErrors(event, String(payload.action), payload)).toBeUndefined();
  });

  it.each<[string, WebhookEvent]>([
    ["the app's own comment", issueCommentCreated({ ...base, number: 7, body: 'Running', appComment: true })],
    ["a user's repository", issuesOpened({ ...base, repository: 'alice/tool', ownerType: 'User', number: 1 })],
    ['a review comment', pullRequestReviewCommentCreated({ ...base, number: 8, body: 'x', appComment: true })],
  ])('%s: also what the description says', (_case, { event, payload }) => {
    expect(githubDescription(false).webhookErrors(event, String(payload.action), payload)).toBeUndefined();
    if (payload.organization === undefined) expect(payload.repository).toMatchObject({ owner: { type: 'User' } });
  });

  it.each(cases)('%s: the signature is one @octokit/webhooks-methods verifies', async (_case, { event, payload }) => {
    const delivery = signedDelivery('s3cret', event, payload, 'delivery-1');
    expect(delivery.headers).toMatchObject({
      'x-github-event': event,
      'x-github-delivery': 'delivery-1',
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^GitHub-Hookshot\//),
    });
    expect(await verify('s3cret', delivery.body, delivery.headers['x-hub-signature-256']!)).toBe(true);
    expect(await verify('other', delivery.body, delivery.headers['x-hub-signature-256']!)).toBe(false);
  });

  it('deliver posts the exact signed bytes', async () => {
    const received: { headers: Record<string, unknown>; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { event, payload } = issuesOpened({ ...base, number: 7, title: 'Crash ✓' });
      const delivery = signedDelivery('s3cret', event, payload);
      const response = await deliver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, delivery);
      expect(response.status).toBe(202);
      expect(received[0]?.body).toBe(delivery.body);
      expect(await verify('s3cret', received[0]!.body, String(received[0]?.headers['x-hub-signature-256']))).toBe(true);
    } finally {
      server.close();
    }
  });
});
