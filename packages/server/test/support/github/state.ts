// What the stand-in knows: installations and the repositories they reach, issues and pull requests,
// the comments, reactions and check runs written to them, and the credentials it issued.
import { randomBytes } from 'node:crypto';

export type Permissions = Record<string, 'read' | 'write'>;

export interface InstallationSpec {
  id: number;
  account: { login: string; type: 'Organization' | 'User'; id?: number };
  /** `owner/name` of each repository the installation reaches. */
  repositories: string[];
  /** Logins who administer the installation: GET /user/installations lists it for them. */
  users?: string[];
  /** Default: issues, pull_requests and checks write, metadata read. */
  permissions?: Permissions;
}

export interface IssueSpec {
  number: number;
  title: string;
  body?: string;
  /** The author's login; default `octocat`. */
  login?: string;
}

export interface PullRequestSpec extends IssueSpec {
  headSha: string;
  headRef: string;
  baseRef?: string;
}

export interface Comment {
  id: number;
  repository: string;
  /** The issue or pull request commented on. */
  number: number;
  kind: 'issue_comment' | 'pull_request_review_comment';
  body: string;
  user: string;
  userType: 'User' | 'Bot';
  /** The previous bodies, oldest first. */
  edits: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Reaction {
  subject: 'issue' | 'issue_comment' | 'pull_request_review_comment';
  /** The issue's number, or the comment's id. */
  id: number;
  repository: string;
  reactionId: number;
  content: string;
  user: string;
}

export interface CheckRun {
  id: number;
  repository: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  details_url: string | null;
  external_id: string | null;
  output: Record<string, unknown> | null;
  started_at: string | null;
  completed_at: string | null;
  /** Each status the run was given, in order (the create's, then each update's). */
  history: string[];
}

export interface Issue extends IssueSpec {
  repository: string;
  pull?: { headSha: string; headRef: string; baseRef: string };
  createdAt: string;
}

/** What a token lets its holder do. */
export type Grant =
  | { kind: 'installation'; installationId: number; repositories: string[]; permissions: Permissions }
  | { kind: 'user'; login: string };

export type Token = Grant & { expiresAt: number };

export const DEFAULT_PERMISSIONS: Permissions = {
  checks: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
};

export class World {
  readonly installations = new Map<number, InstallationSpec>();
  readonly issues = new Map<string, Issue>();
  readonly comments = new Map<number, Comment>();
  readonly reactions: Reaction[] = [];
  readonly checkRuns = new Map<number, CheckRun>();
  readonly tokens = new Map<string, Token>();
  /** OAuth codes not yet exchanged: code → login. */
  readonly codes = new Map<string, { login: string; expiresAt: number }>();
  private nextId = 1_000_001;

  id(): number {
    return this.nextId++;
  }

  issue(repository: string, number: number): Issue | undefined {
    return this.issues.get(`${key(repository)}#${number}`);
  }

  putIssue(issue: Issue): void {
    this.issues.set(`${key(issue.repository)}#${issue.number}`, issue);
  }

  /** The installation that reaches `repository`, if any. */
  installationOf(repository: string): InstallationSpec | undefined {
    return [...this.installations.values()].find((i) => i.repositories.some((r) => key(r) === key(repository)));
  }

  /** The repository's name as its installation spells it. */
  canonical(repository: string): string {
    return this.installationOf(repository)?.repositories.find((r) => key(r) === key(repository)) ?? repository;
  }

  issueToken(grant: Grant, lifetimeSeconds: number, prefix: string): { token: string; expiresAt: number } {
    const secret = `${prefix}_${randomBytes(27).toString('base64url').slice(0, 36)}`;
    const expiresAt = Date.now() + lifetimeSeconds * 1000;
    this.tokens.set(secret, { ...grant, expiresAt });
    return { token: secret, expiresAt };
  }

  /** The live token `secret` names. */
  token(secret: string): Token | undefined {
    const token = this.tokens.get(secret);
    return token !== undefined && token.expiresAt > Date.now() ? token : undefined;
  }

  addComment(comment: Omit<Comment, 'id' | 'edits' | 'createdAt' | 'updatedAt'> & { id?: number }): Comment {
    const now = new Date().toISOString();
    const stored: Comment = { ...comment, id: comment.id ?? this.id(), edits: [], createdAt: now, updatedAt: now };
    this.comments.set(stored.id, stored);
    return stored;
  }
}

/** Repository names compare case-insensitively, as on GitHub. */
export function key(repository: string): string {
  return repository.toLowerCase();
}

/** A number GitHub would use as the id of a named thing (accounts, repositories): stable per name. */
export function idOf(name: string): number {
  let hash = 7;
  for (const char of name.toLowerCase()) hash = (hash * 31 + char.charCodeAt(0)) % 90_000_000;
  return 10_000_000 + hash;
}
