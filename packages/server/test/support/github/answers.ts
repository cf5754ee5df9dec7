// GitHub-shaped answers: each starts from the example the description gives for the operation and
// changes the fields the stand-in knows, so that every field a reader might look at is there.
import type { GitHubDescription } from './description.js';
import type { Json } from './schema.js';
import { idOf, type CheckRun, type Comment, type InstallationSpec, type Issue, type Reaction } from './state.js';

export interface Site {
  description: GitHubDescription;
  apiUrl: string;
  webUrl: string;
  app: { id: number; slug: string; name: string; clientId: string; owner: string };
}

/** Replaces the example's URLs and names with the stand-in's, all through the JSON. */
function rewrite(value: Json, site: Site, names: [string, string][] = []): Json {
  let text = JSON.stringify(value);
  for (const [from, to] of names) text = text.split(from).join(to);
  text = text.split('https://api.github.com').join(site.apiUrl).split('https://github.com').join(site.webUrl);
  return JSON.parse(text) as Json;
}

const nodeId = (kind: string, id: number): string => Buffer.from(`0:${kind}${id}`).toString('base64');

export function userJson(site: Site, login: string, type: 'User' | 'Bot' | 'Organization' = 'User'): Json {
  const example = site.description.exampleOf('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', 200);
  const user = rewrite(example.user as Json, site, [['octocat', encodeURIComponent(login)]]);
  const id = idOf(login);
  const avatar_url = `${site.webUrl}/avatars/u/${id}`;
  return { ...user, login, id, node_id: nodeId(type, id), avatar_url, type, site_admin: false };
}

export function appJson(site: Site): Json {
  const { app } = site;
  const example = rewrite(site.description.exampleOf('GET', '/app', 200), site, [['octoapp', app.slug]]);
  return {
    ...example,
    id: app.id,
    slug: app.slug,
    client_id: app.clientId,
    node_id: nodeId('Integration', app.id),
    name: app.name,
    owner: userJson(site, app.owner, 'Organization'),
    permissions: { checks: 'write', issues: 'write', metadata: 'read', pull_requests: 'write' },
    events: ['issue_comment', 'issues', 'pull_request', 'pull_request_review_comment'],
  };
}

export function installationJson(site: Site, installation: InstallationSpec, permissions: Json): Json {
  const example = site.description.exampleOf('GET', '/app/installations/{installation_id}', 200);
  const { account } = installation;
  const accountId = account.id ?? idOf(account.login);
  return {
    ...rewrite(example, site, [['/installations/1', `/installations/${installation.id}`]]),
    id: installation.id,
    account: { ...userJson(site, account.login, account.type), id: accountId },
    repository_selection: 'selected',
    html_url: `${site.webUrl}/${account.type === 'Organization' ? `organizations/${account.login}/` : ''}settings/installations/${installation.id}`,
    app_id: site.app.id,
    app_slug: site.app.slug,
    client_id: site.app.clientId,
    target_id: accountId,
    target_type: account.type,
    permissions,
    events: ['issue_comment', 'issues', 'pull_request', 'pull_request_review_comment'],
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
  };
}

export function commentJson(site: Site, comment: Comment): Json {
  const example = site.description.exampleOf('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', 200);
  const repo = comment.repository;
  const kind = comment.kind === 'issue_comment' ? 'IssueComment' : 'PullRequestReviewComment';
  return {
    ...rewrite(example, site, [['octocat/Hello-World', repo]]),
    id: comment.id,
    node_id: nodeId(kind, comment.id),
    url: `${site.apiUrl}/repos/${repo}/issues/comments/${comment.id}`,
    html_url: `${site.webUrl}/${repo}/issues/${comment.number}#issuecomment-${comment.id}`,
    issue_url: `${site.apiUrl}/repos/${repo}/issues/${comment.number}`,
    body: comment.body,
    user: userJson(site, comment.user, comment.userType),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: comment.userType === 'Bot' ? 'NONE' : 'MEMBER',
    performed_via_github_app: comment.userType === 'Bot' ? appJson(site) : null,
  };
}

export function reactionJson(site: Site, reaction: Reaction): Json {
  const example = site.description.exampleOf('POST', '/repos/{owner}/{repo}/issues/{issue_number}/reactions', 201);
  return {
    ...example,
    id: reaction.reactionId,
    node_id: nodeId('Reaction', reaction.reactionId),
    user: userJson(site, reaction.user, reaction.user.endsWith('[bot]') ? 'Bot' : 'User'),
    content: reaction.content,
    created_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

export function pullJson(site: Site, issue: Issue): Json {
  const example = site.description.exampleOf('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 200);
  const repo = issue.repository;
  const [owner = '', name = ''] = repo.split('/');
  const pull = issue.pull ?? { headSha: '', headRef: '', baseRef: 'main' };
  const json = rewrite(example, site, [
    ['octocat/Hello-World', repo],
    ['/1347', `/${issue.number}`],
    ['6dcb09b5b57875f334f61aebed695e2e4193db5e', pull.headSha],
  ]);
  const side = (ref: string, sha: string) => {
    const repository = { ...((json.head as Json).repo as Json), id: idOf(repo), name, full_name: repo };
    return {
      ...(json.head as Json),
      label: `${owner}:${ref}`,
      ref,
      sha,
      user: userJson(site, owner),
      repo: repository,
    };
  };
  return {
    ...json,
    id: idOf(`${repo}#${issue.number}`),
    node_id: nodeId('PullRequest', issue.number),
    number: issue.number,
    state: 'open',
    title: issue.title,
    body: issue.body ?? null,
    user: userJson(site, issue.login ?? 'octocat'),
    head: side(pull.headRef, pull.headSha),
    base: { ...side(pull.baseRef, (json.base as Json).sha as string) },
    created_at: issue.createdAt,
    updated_at: issue.createdAt,
    labels: [],
    milestone: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    closed_at: null,
    merged_at: null,
    merged: false,
    merged_by: null,
  };
}

export function checkRunJson(site: Site, run: CheckRun): Json {
  const example = site.description.exampleOf('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}', 200);
  const repo = run.repository;
  const json = rewrite(example, site, [
    ['github/hello-world', repo],
    ['/check-runs/4', `/check-runs/${run.id}`],
  ]);
  const output = { title: null, summary: null, text: null, ...(run.output ?? {}) };
  return {
    ...json,
    id: run.id,
    node_id: nodeId('CheckRun', run.id),
    name: run.name,
    head_sha: run.head_sha,
    external_id: run.external_id,
    html_url: `${site.webUrl}/${repo}/runs/${run.id}`,
    details_url: run.details_url,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at,
    completed_at: run.completed_at,
    output: { ...output, annotations_count: 0, annotations_url: `${json.url as string}/annotations` },
    app: appJson(site),
    pull_requests: [],
  };
}
