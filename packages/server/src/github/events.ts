// What a webhook delivery asks of the hub (DECISIONS.md, GitHub, "Events read"): read from GitHub's
// payload alone, without the database, so that it is the same on every instance.

/** The events and actions the hub acts on; anything else is answered 202 `ignored` and not stored. */
const READ: Record<string, readonly string[]> = {
  issue_comment: ['created'],
  pull_request_review_comment: ['created'],
  issues: ['opened', 'labeled'],
  pull_request: ['opened', 'labeled'],
};

export function isReadEvent(event: string, payload: unknown): boolean {
  const action = (payload as { action?: unknown } | null)?.action;
  return typeof action === 'string' && (READ[event]?.includes(action) ?? false);
}

/** Where the eyes reaction goes: the comment that mentioned the app, or the issue or pull request itself. */
export type Subject =
  | { subject: 'issue_comment'; id: number }
  | { subject: 'pull_request_review_comment'; id: number }
  | { subject: 'issue'; number: number };

/** The issue or pull request an event is about. */
export interface Item {
  installationId: number;
  repository: string;
  number: number;
  kind: 'issue' | 'pull_request';
  title: string;
  body: string;
  url: string;
  /** A pull request's head commit and branch, when the payload has them (an issue comment's does not). */
  headSha?: string;
  headRef?: string;
}

export type GitHubEvent =
  | { kind: 'mention'; item: Item; actor: string; text: string; subject: Subject }
  | { kind: 'label'; item: Item; actor: string; label: string; subject: Subject }
  | { kind: 'ignored'; reason: string };

type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const whole = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) ? value : 0);

/** A delivery's payload read as a mention or a label event, or why the hub ignores it. */
export function readEvent(event: string, payload: unknown, slug: string): GitHubEvent {
  const body = object(payload);
  const installationId = whole(object(body.installation).id);
  const repository = text(object(body.repository).full_name);
  if (installationId <= 0) return { kind: 'ignored', reason: 'no installation' };
  if (repository === '') return { kind: 'ignored', reason: 'no repository' };
  const sender = object(body.sender);
  const action = text(body.action);
  const pull = object(body.pull_request);
  const issue = object(body.issue);
  const fromPull = event === 'pull_request' || event === 'pull_request_review_comment';
  const source = fromPull ? pull : issue;
  const head = object(pull.head);
  const item: Item = {
    installationId,
    repository,
    number: whole(source.number),
    kind: fromPull || body.issue === undefined || object(issue).pull_request !== undefined ? 'pull_request' : 'issue',
    title: text(source.title),
    body: text(source.body),
    url: text(source.html_url),
    ...(text(head.sha) === '' ? {} : { headSha: text(head.sha), headRef: text(head.ref) }),
  };
  if (item.number <= 0) return { kind: 'ignored', reason: 'no issue or pull request number' };
  if (action === 'labeled') {
    const label = text(object(body.label).name);
    if (label === '') return { kind: 'ignored', reason: 'no label' };
    if (isApp(sender, slug)) return { kind: 'ignored', reason: "the app's own label" };
    return {
      kind: 'label',
      item,
      actor: text(sender.login),
      label,
      subject: { subject: 'issue', number: item.number },
    };
  }
  if (event === 'issue_comment' || event === 'pull_request_review_comment') {
    const comment = object(body.comment);
    const author = object(comment.user);
    if (isApp(author, slug) || isApp(sender, slug)) return { kind: 'ignored', reason: "the app's own comment" };
    const id = whole(comment.id);
    return {
      kind: 'mention',
      item,
      actor: text(author.login) || text(sender.login),
      text: text(comment.body),
      subject: { subject: event === 'issue_comment' ? 'issue_comment' : 'pull_request_review_comment', id },
    };
  }
  const author = object(source.user);
  if (isApp(author, slug)) return { kind: 'ignored', reason: "the app's own issue or pull request" };
  return {
    kind: 'mention',
    item,
    actor: text(author.login) || text(sender.login),
    text: item.body,
    subject: { subject: 'issue', number: item.number },
  };
}

/** The app's own account: `<slug>[bot]`, a Bot. */
function isApp(user: Json, slug: string): boolean {
  return text(user.login).toLowerCase() === `${slug.toLowerCase()}[bot]`;
}
