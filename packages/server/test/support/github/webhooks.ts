// Webhook payloads as GitHub sends them: GitHub's real payloads (@octokit/webhooks-examples) with
// only the fields a case needs changed, and signed deliveries of them.
import { createHmac, randomUUID } from 'node:crypto';
import {
  account,
  example,
  finish,
  nodeId,
  renumberComment,
  thread,
  timestamp,
  withBase,
  type PayloadBase,
} from './payload-parts.js';
import type { Json } from './schema.js';

export type { PayloadBase };

export type WebhookEventName = 'issue_comment' | 'issues' | 'pull_request' | 'pull_request_review_comment';

export interface WebhookEvent {
  event: WebhookEventName;
  payload: Json;
}

export interface ThreadFields extends PayloadBase {
  number: number;
  title?: string;
  /** The issue's or pull request's body. */
  body?: string;
}

export interface CommentFields extends PayloadBase {
  /** The issue or pull request commented on. */
  number: number;
  /** The comment's text. */
  body: string;
  commentId?: number;
  title?: string;
  /** Written by the app itself: the author is `<slug>[bot]`, a Bot. */
  appComment?: boolean;
  /** The app's slug and id, for appComment; default hub-bot and 12345. */
  slug?: string;
  appId?: number;
}

export interface PullFields extends ThreadFields {
  headSha?: string;
  headRef?: string;
  baseRef?: string;
}

let nextCommentId = 2_000_000_001;

export function issueCommentCreated(fields: CommentFields & { pullRequest?: boolean }): WebhookEvent {
  const payload = withBase(example('issue_comment', 'created'), fields);
  const author = commentAuthor(payload, fields);
  const issue = payload.issue as Json;
  thread(issue, payload, fields, { ...threadFields(fields, 'issues'), login: fields.login ?? 'octocat' });
  if (fields.pullRequest === true) {
    const web = String(issue.html_url).replace(/\/issues\/(\d+)$/, '/pull/$1');
    issue.html_url = web;
    issue.pull_request = {
      url: String(issue.url).replace(/\/issues\/(\d+)$/, '/pulls/$1'),
      html_url: web,
      diff_url: `${web}.diff`,
      patch_url: `${web}.patch`,
      merged_at: null,
    };
  } else {
    delete issue.pull_request;
  }
  const id = fields.commentId ?? nextCommentId++;
  const comment = payload.comment as Json;
  renumberComment(comment, id);
  Object.assign(comment, {
    id,
    node_id: nodeId('IssueComment', id),
    body: fields.body,
    user: author.user,
    url: `${String(issue.repository_url)}/issues/comments/${id}`,
    html_url: `${String(issue.html_url)}#issuecomment-${id}`,
    issue_url: issue.url,
    created_at: timestamp(),
    updated_at: timestamp(),
    author_association: author.bot ? 'NONE' : 'MEMBER',
    performed_via_github_app: author.app,
  });
  if (author.bot) payload.sender = author.user;
  return { event: 'issue_comment', payload: finish(payload, fields) };
}

export function pullRequestReviewCommentCreated(fields: CommentFields & Omit<PullFields, 'body'>): WebhookEvent {
  const payload = withBase(example('pull_request_review_comment', 'created'), fields);
  const author = commentAuthor(payload, fields);
  const pull = pullRequest(payload, { ...fields, body: undefined });
  const id = fields.commentId ?? nextCommentId++;
  const comment = payload.comment as Json;
  renumberComment(comment, id);
  Object.assign(comment, {
    id,
    node_id: nodeId('PullRequestReviewComment', id),
    body: fields.body,
    user: author.user,
    url: `${String(pull.url).replace(/\/pulls\/\d+$/, '')}/pulls/comments/${id}`,
    html_url: `${String(pull.html_url)}#discussion_r${id}`,
    pull_request_url: pull.url,
    commit_id: (pull.head as Json).sha,
    created_at: timestamp(),
    updated_at: timestamp(),
    author_association: author.bot ? 'NONE' : 'MEMBER',
    performed_via_github_app: author.app,
  });
  if (author.bot) payload.sender = author.user;
  return { event: 'pull_request_review_comment', payload: finish(payload, fields) };
}

export function issuesOpened(fields: ThreadFields): WebhookEvent {
  const payload = withBase(example('issues', 'opened'), fields);
  const issue = payload.issue as Json;
  thread(issue, payload, fields, { ...threadFields(fields, 'issues'), login: fields.login ?? 'octocat' });
  delete issue.pull_request;
  return { event: 'issues', payload: finish(payload, fields) };
}

export function issuesLabeled(fields: ThreadFields & { label: string }): WebhookEvent {
  const { payload } = issuesOpened(fields);
  const label = labelOf(example('issues', 'labeled'), fields.label, fields);
  Object.assign(payload, { action: 'labeled', label });
  (payload.issue as Json).labels = [label];
  return { event: 'issues', payload };
}

export function pullRequestOpened(fields: PullFields): WebhookEvent {
  const payload = withBase(example('pull_request', 'opened'), fields);
  pullRequest(payload, fields);
  payload.number = fields.number;
  return { event: 'pull_request', payload: finish(payload, fields) };
}

export function pullRequestLabeled(fields: PullFields & { label: string }): WebhookEvent {
  const { payload } = pullRequestOpened(fields);
  const label = labelOf(example('pull_request', 'labeled'), fields.label, fields);
  Object.assign(payload, { action: 'labeled', label });
  (payload.pull_request as Json).labels = [label];
  return { event: 'pull_request', payload };
}

export interface Delivery {
  headers: Record<string, string>;
  /** The exact bytes signed, as sent. */
  body: string;
}

/** A delivery signed as GitHub signs one: HMAC-SHA256 (and the legacy SHA-1) of the exact body with the secret. */
export function signedDelivery(
  secret: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): Delivery {
  const body = JSON.stringify(payload);
  const hmac = (algorithm: string) => createHmac(algorithm, secret).update(body, 'utf8').digest('hex');
  const installation = (payload as Json | null)?.installation as Json | undefined;
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/8a9e3b2',
      'x-github-delivery': deliveryId,
      'x-github-event': event,
      'x-github-hook-id': '450000001',
      'x-github-hook-installation-target-type': 'integration',
      ...(installation === undefined ? {} : { 'x-github-hook-installation-target-id': String(installation.id) }),
      'x-hub-signature': `sha1=${hmac('sha1')}`,
      'x-hub-signature-256': `sha256=${hmac('sha256')}`,
    },
    body,
  };
}

/** POSTs a delivery to `url`, as GitHub's hookshot does. */
export function deliver(url: string, delivery: Delivery): Promise<Response> {
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}

function threadFields(fields: ThreadFields, kind: 'issues' | 'pull') {
  return { number: fields.number, title: fields.title ?? `Issue ${fields.number}`, body: fields.body ?? null, kind };
}

function commentAuthor(payload: Json, fields: CommentFields) {
  const slug = fields.slug ?? 'hub-bot';
  if (fields.appComment !== true) {
    return { bot: false, user: account(payload, fields, fields.login ?? 'octocat', 'User'), app: null };
  }
  const web = fields.webUrl ?? 'https://github.com';
  const app = {
    id: fields.appId ?? 12345,
    slug,
    node_id: nodeId('Integration', slug),
    owner: account(payload, fields, fields.repository.split('/')[0] ?? '', 'Organization'),
    name: slug,
    description: '',
    external_url: `${web}/apps/${slug}`,
    html_url: `${web}/apps/${slug}`,
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
    permissions: { checks: 'write', issues: 'write', metadata: 'read', pull_requests: 'write' },
    events: ['issue_comment', 'issues', 'pull_request', 'pull_request_review_comment'],
  };
  return { bot: true, user: account(payload, fields, `${slug}[bot]`, 'Bot'), app };
}

function pullRequest(payload: Json, fields: PullFields): Json {
  const pull = payload.pull_request as Json;
  const title = fields.title ?? `Pull request ${fields.number}`;
  thread(pull, payload, fields, {
    number: fields.number,
    title,
    body: fields.body ?? null,
    login: fields.login ?? 'octocat',
    kind: 'pull',
  });
  const repository = payload.repository as Json;
  const owner = repository.owner as Json;
  const { id, node_id, name, full_name, private: secret } = repository;
  const side = (at: Json, ref: string, sha: string) =>
    Object.assign(at, {
      ref,
      sha,
      label: `${String(owner.login)}:${ref}`,
      user: owner,
      // Newer payloads than the examples carry has_discussions, which the description requires.
      repo: { has_discussions: false, ...(at.repo as Json), id, node_id, name, full_name, owner, private: secret },
    });
  const sha = fields.headSha ?? 'f'.repeat(40);
  Object.assign(
    pull,
    JSON.parse(
      JSON.stringify(pull)
        .split(String((pull.head as Json).sha))
        .join(sha),
    ) as Json,
  );
  side(pull.head as Json, fields.headRef ?? `branch-${fields.number}`, sha);
  side(pull.base as Json, fields.baseRef ?? 'main', (pull.base as Json).sha as string);
  Object.assign(pull, {
    merged: false,
    merged_at: null,
    merged_by: null,
    closed_at: null,
    draft: false,
    requested_reviewers: [],
    requested_teams: [],
    auto_merge: null,
  });
  return pull;
}

function labelOf(from: Json, name: string, base: PayloadBase): Json {
  const label = structuredClone(from.label) as Json;
  const api = base.apiUrl ?? 'https://api.github.com';
  return { ...label, name, url: `${api}/repos/${base.repository}/labels/${encodeURIComponent(name)}` };
}
