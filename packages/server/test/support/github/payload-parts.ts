// The parts every webhook payload shares, cut from GitHub's real payloads (@octokit/webhooks-examples):
// the example a case starts from, and the repository, installation, organization and sender edited
// to say the same thing everywhere.
import { createRequire } from 'node:module';
import type { Json } from './schema.js';
import { idOf } from './state.js';

export interface PayloadBase {
  /** `owner/name`. */
  repository: string;
  installationId: number;
  /** Who acted (the sender, and the author of what was written); default `octocat`. */
  login?: string;
  /** The repository owner's kind; default Organization. */
  ownerType?: 'Organization' | 'User';
  /** Where the payload's URLs point; default GitHub's own. */
  apiUrl?: string;
  webUrl?: string;
}

interface Definition {
  name: string;
  examples: Json[];
}

const EXAMPLE_REPOSITORY = 'Codertocat/Hello-World';
const EXAMPLE_LOGIN = 'Codertocat';

let definitions: Definition[] | undefined;

/** A copy of GitHub's example for `event` and `action`, the one with the most of the shared parts. */
export function example(event: string, action: string): Json {
  definitions ??= createRequire(import.meta.url)('@octokit/webhooks-examples') as Definition[];
  const examples = definitions.find((d) => d.name === event)?.examples.filter((e) => e.action === action) ?? [];
  const score = (e: Json) => Number(e.installation !== undefined) * 2 + Number(e.organization !== undefined);
  const best = [...examples].sort((a, b) => score(b) - score(a))[0];
  if (best === undefined) throw new Error(`@octokit/webhooks-examples has no ${event}.${action}`);
  return structuredClone(best);
}

/** The example with its repository's name and URLs replaced throughout, then the shared parts set. */
export function withBase(payload: Json, base: PayloadBase): Json {
  const [owner = '', name = ''] = base.repository.split('/');
  let text = JSON.stringify(payload).split(EXAMPLE_REPOSITORY).join(base.repository);
  if (base.apiUrl !== undefined) text = text.split('https://api.github.com').join(base.apiUrl);
  if (base.webUrl !== undefined) text = text.split('https://github.com').join(base.webUrl);
  const edited = JSON.parse(text) as Json;
  const ownerType = base.ownerType ?? 'Organization';
  const repository = edited.repository as Json;
  Object.assign(repository, {
    id: idOf(base.repository),
    node_id: Buffer.from(`010:Repository${idOf(base.repository)}`).toString('base64'),
    name,
    full_name: base.repository,
    owner: account(edited, base, owner, ownerType),
    private: true,
  });
  edited.installation = {
    id: base.installationId,
    node_id: Buffer.from(`023:IntegrationInstallation${base.installationId}`).toString('base64'),
  };
  if (ownerType === 'Organization') {
    const organization = (edited.organization ?? {}) as Json;
    edited.organization = { ...organization, login: owner, id: idOf(owner), node_id: nodeId('Organization', owner) };
  } else {
    delete edited.organization;
  }
  edited.sender = account(edited, base, base.login ?? 'octocat', 'User');
  return edited;
}

/** An account as payloads show one, from the example's sender. */
export function account(payload: Json, base: PayloadBase, login: string, type: 'User' | 'Organization' | 'Bot'): Json {
  const template = payload.sender as Json;
  const from = encodeURIComponent(String(template.login ?? EXAMPLE_LOGIN));
  const sender = JSON.stringify(template)
    .split(`/${from}`)
    .join(`/${encodeURIComponent(login)}`);
  const id = idOf(login);
  const avatar_url = `${base.webUrl ?? 'https://avatars.githubusercontent.com'}/u/${id}?v=4`;
  return {
    ...(JSON.parse(sender) as Json),
    login,
    id,
    node_id: nodeId(type, login),
    avatar_url,
    type,
    site_admin: false,
  };
}

/** What an issue or pull request shares in payloads: number, title, body, author, URLs. */
export function thread(
  target: Json,
  payload: Json,
  base: PayloadBase,
  fields: { number: number; title: string; body: string | null; login: string; kind: 'issues' | 'pull' },
): void {
  const api = `${base.apiUrl ?? 'https://api.github.com'}/repos/${base.repository}`;
  const web = `${base.webUrl ?? 'https://github.com'}/${base.repository}`;
  const number = new RegExp(`/(issues|pulls|pull)/${String(target.number)}(?=[/"#{.]|$)`, 'g');
  Object.assign(target, JSON.parse(JSON.stringify(target).replace(number, `/$1/${fields.number}`)) as Json, {
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    id: idOf(`${base.repository}#${fields.number}`),
    number: fields.number,
    title: fields.title,
    body: fields.body,
    user: account(payload, base, fields.login, 'User'),
    url: `${api}/${fields.kind === 'pull' ? 'pulls' : 'issues'}/${fields.number}`,
    html_url: `${web}/${fields.kind}/${fields.number}`,
    comments_url: `${api}/issues/${fields.number}/comments`,
    state: 'open',
  });
  if (fields.kind === 'pull') Object.assign(target, { issue_url: `${api}/issues/${fields.number}` });
}

/** The comment's id changed everywhere the example's shows, in its URLs too. */
export function renumberComment(comment: Json, id: number): void {
  const old = String(comment.id);
  const text = JSON.stringify(comment).replace(
    new RegExp(`(comments/|issuecomment-|discussion_r)${old}\\b`, 'g'),
    `$1${id}`,
  );
  Object.assign(comment, JSON.parse(text) as Json, { id });
}

/** What no edit reached is the example repository's (its owner's, its name): now the case's. */
export function finish(payload: Json, base: PayloadBase): Json {
  const [owner = '', name = ''] = base.repository.split('/');
  const replacements = [
    [EXAMPLE_LOGIN, owner],
    ['Octocoders', owner],
    ['Hello-World', name],
  ];
  const text = replacements.reduce((json, [from, to]) => json.split(from!).join(to!), JSON.stringify(payload));
  return JSON.parse(text) as Json;
}

export function nodeId(kind: string, name: string | number): string {
  return Buffer.from(`0:${kind}${String(name)}`).toString('base64');
}

export function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}
