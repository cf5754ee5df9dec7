// The REST operations the hub calls, by operationId, each as GitHub answers it.
import {
  appJson,
  checkRunJson,
  commentJson,
  installationJson,
  pullJson,
  reactionJson,
  userJson,
  type Site,
} from './answers.js';
import { actorLogin, Refusal, requirePermission, type Actor } from './credentials.js';
import type { Json } from './schema.js';
import { DEFAULT_PERMISSIONS, key, type CheckRun, type Reaction, type World } from './state.js';

export interface Call {
  world: World;
  site: Site;
  actor: Actor;
  params: Record<string, string | number>;
  body: Json;
}

export interface Answer {
  status: number;
  body?: unknown;
}

type Handler = (call: Call) => Answer;

const TOKEN_LIFETIME_SECONDS = 3600;

const notFound = (why: string) => new Refusal(404, 'Not Found', why);
const repositoryOf = (call: Call) => call.world.canonical(`${String(call.params.owner)}/${String(call.params.repo)}`);
const timestamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function installation(call: Call) {
  const found = call.world.installations.get(Number(call.params.installation_id));
  if (found === undefined) throw notFound(`no installation ${String(call.params.installation_id)}`);
  return found;
}

function issueOf(call: Call, number: number) {
  const issue = call.world.issue(repositoryOf(call), number);
  if (issue === undefined) throw notFound(`no issue or pull request #${number} in ${repositoryOf(call)}`);
  return issue;
}

function commentOf(call: Call, kind: 'issue_comment' | 'pull_request_review_comment') {
  const comment = call.world.comments.get(Number(call.params.comment_id));
  if (comment === undefined || comment.kind !== kind || key(comment.repository) !== key(repositoryOf(call))) {
    throw notFound(`no ${kind} ${String(call.params.comment_id)} in ${repositoryOf(call)}`);
  }
  return comment;
}

/** Issues and pull requests share their comments and reactions: either permission will do on a pull request. */
function requireIssueWrite(call: Call, number: number, level: 'read' | 'write' = 'write'): void {
  const pull = issueOf(call, number).pull !== undefined;
  requirePermission(call.actor, pull ? ['issues', 'pull_requests'] : ['issues'], level);
}

function react(call: Call, subject: Reaction['subject'], id: number): Answer {
  const user = actorLogin(call.actor, call.site.app.slug);
  const content = String(call.body.content);
  const existing = call.world.reactions.find(
    (r) => r.subject === subject && r.id === id && r.user === user && r.content === content,
  );
  if (existing !== undefined) return { status: 200, body: reactionJson(call.site, existing) };
  const reaction: Reaction = {
    subject,
    id,
    repository: repositoryOf(call),
    reactionId: call.world.id(),
    content,
    user,
  };
  call.world.reactions.push(reaction);
  return { status: 201, body: reactionJson(call.site, reaction) };
}

function checkRunFields(call: Call, run: CheckRun): void {
  const body = call.body;
  const now = timestamp();
  if (typeof body.name === 'string') run.name = body.name;
  if (typeof body.details_url === 'string') run.details_url = body.details_url;
  if (typeof body.external_id === 'string') run.external_id = body.external_id;
  if (typeof body.output === 'object' && body.output !== null) run.output = body.output as Json;
  if (typeof body.started_at === 'string') run.started_at = body.started_at;
  if (typeof body.status === 'string') run.status = body.status;
  if (typeof body.conclusion === 'string') {
    run.conclusion = body.conclusion;
    run.status = 'completed';
  }
  if (run.status === 'completed') {
    if (run.conclusion === null) {
      throw new Refusal(
        422,
        'Invalid request.\n\n"conclusion" wasn\'t supplied.',
        'status completed without a conclusion',
      );
    }
    run.completed_at = typeof body.completed_at === 'string' ? body.completed_at : (run.completed_at ?? now);
  }
  if (run.status === 'in_progress' && run.started_at === null) run.started_at = now;
  run.history.push(run.status);
}

export const handlers: Record<string, Handler> = {
  'apps/get-authenticated': (call) => ({ status: 200, body: appJson(call.site) }),

  'apps/get-installation': (call) => {
    const found = installation(call);
    return { status: 200, body: installationJson(call.site, found, found.permissions ?? DEFAULT_PERMISSIONS) };
  },

  'apps/create-installation-access-token': (call) => {
    const found = installation(call);
    const granted = found.permissions ?? DEFAULT_PERMISSIONS;
    const asked = (call.body.permissions ?? granted) as Record<string, 'read' | 'write'>;
    for (const [name, level] of Object.entries(asked)) {
      if (granted[name] === undefined || (level === 'write' && granted[name] !== 'write')) {
        throw new Refusal(
          422,
          'The permissions requested are not granted to this installation.',
          `${name}: ${level} asked of installation ${found.id}`,
        );
      }
    }
    const names = (call.body.repositories ?? []) as string[];
    const repositories =
      names.length === 0 ? found.repositories : found.repositories.filter((r) => names.includes(r.split('/')[1]!));
    if (repositories.length < names.length) {
      throw new Refusal(
        422,
        'There is at least one repository that does not exist or is not accessible to the parent installation.',
        `repositories ${names.join(', ')}`,
      );
    }
    const issued = call.world.issueToken(
      { kind: 'installation', installationId: found.id, repositories, permissions: asked },
      TOKEN_LIFETIME_SECONDS,
      'ghs',
    );
    const expires_at = new Date(issued.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      status: 201,
      body: { token: issued.token, expires_at, permissions: asked, repository_selection: 'selected' },
    };
  },

  'apps/list-installations-for-authenticated-user': (call) => {
    const login = actorLogin(call.actor, call.site.app.slug);
    const installations = [...call.world.installations.values()]
      .filter((i) => i.users?.some((user) => key(user) === key(login)))
      .map((i) => installationJson(call.site, i, i.permissions ?? DEFAULT_PERMISSIONS));
    return { status: 200, body: { total_count: installations.length, installations } };
  },

  'users/get-authenticated': (call) => ({
    status: 200,
    body: userJson(call.site, actorLogin(call.actor, call.site.app.slug)),
  }),

  'issues/create-comment': (call) => {
    const number = Number(call.params.issue_number);
    requireIssueWrite(call, number);
    const comment = call.world.addComment({
      repository: repositoryOf(call),
      number,
      kind: 'issue_comment',
      body: String(call.body.body),
      user: actorLogin(call.actor, call.site.app.slug),
      userType: call.actor.kind === 'installation' ? 'Bot' : 'User',
    });
    return { status: 201, body: commentJson(call.site, comment) };
  },

  'issues/get-comment': (call) => {
    const comment = commentOf(call, 'issue_comment');
    requireIssueWrite(call, comment.number, 'read');
    return { status: 200, body: commentJson(call.site, comment) };
  },

  'issues/update-comment': (call) => {
    const comment = commentOf(call, 'issue_comment');
    requireIssueWrite(call, comment.number);
    comment.edits.push(comment.body);
    comment.body = String(call.body.body);
    comment.updatedAt = new Date().toISOString();
    return { status: 200, body: commentJson(call.site, comment) };
  },

  'reactions/create-for-issue-comment': (call) => {
    const comment = commentOf(call, 'issue_comment');
    requireIssueWrite(call, comment.number);
    return react(call, 'issue_comment', comment.id);
  },

  'reactions/create-for-issue': (call) => {
    const number = Number(call.params.issue_number);
    requireIssueWrite(call, number);
    return react(call, 'issue', number);
  },

  'reactions/create-for-pull-request-review-comment': (call) => {
    const comment = commentOf(call, 'pull_request_review_comment');
    requirePermission(call.actor, ['pull_requests'], 'write');
    return react(call, 'pull_request_review_comment', comment.id);
  },

  'pulls/get': (call) => {
    requirePermission(call.actor, ['pull_requests'], 'read');
    const issue = issueOf(call, Number(call.params.pull_number));
    if (issue.pull === undefined) throw notFound(`#${issue.number} is an issue, not a pull request`);
    return { status: 200, body: pullJson(call.site, issue) };
  },

  'checks/create': (call) => {
    requirePermission(call.actor, ['checks'], 'write');
    const repository = repositoryOf(call);
    const sha = String(call.body.head_sha);
    const known = [...call.world.issues.values()].some(
      (i) => key(i.repository) === key(repository) && i.pull?.headSha === sha,
    );
    if (!known)
      throw new Refusal(422, `No commit found for SHA: ${sha}`, `no pull request of ${repository} has head ${sha}`);
    const run: CheckRun = {
      id: call.world.id(),
      repository,
      name: String(call.body.name),
      head_sha: sha,
      status: 'queued',
      conclusion: null,
      details_url: null,
      external_id: null,
      output: null,
      started_at: null,
      completed_at: null,
      history: [],
    };
    checkRunFields(call, run);
    call.world.checkRuns.set(run.id, run);
    return { status: 201, body: checkRunJson(call.site, run) };
  },

  'checks/update': (call) => {
    requirePermission(call.actor, ['checks'], 'write');
    const run = call.world.checkRuns.get(Number(call.params.check_run_id));
    if (run === undefined || key(run.repository) !== key(repositoryOf(call))) {
      throw notFound(`no check run ${String(call.params.check_run_id)} in ${repositoryOf(call)}`);
    }
    checkRunFields(call, run);
    return { status: 200, body: checkRunJson(call.site, run) };
  },
};
