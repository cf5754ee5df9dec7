// The storage and GitHub calls the GitHub pages need: a part of the dashboard's port (DashboardStore extends it).

/** The hub's GitHub App as the pages need it; undefined when GitHub is off. */
export interface GitHubSettings {
  /** The app's slug: its page is `${webUrl}/apps/${slug}`. */
  slug: string;
  /** Where people sign in to GitHub: https://github.com, or an Enterprise Server. */
  webUrl: string;
  /** GitHub's page that installs the app: `${webUrl}/apps/<slug>/installations/new`, `/github-apps/…` on an Enterprise Server. */
  installUrl: string;
  /** The app's OAuth client id, when the hub has its OAuth credentials: owners can then prove they administer an installation. */
  clientId: string | undefined;
}

/** The account an installation is on, as GitHub names it. */
export interface GitHubAccount {
  login: string;
  /** `User`, `Organization` or `Enterprise`. */
  type: string;
}

export interface LinkedInstallation {
  installationId: number;
  account: GitHubAccount | undefined;
  linkedAt: Date;
  /** The owner who linked it in the dashboard; null when the operator API did (or the account is gone). */
  linkedBy: string | null;
}

export interface NamedRepository {
  slug: string;
  name: string;
  repository: string;
}

/** An installation a GitHub user can reach, and whether it is linked already. */
export interface ReachableInstallation {
  installationId: number;
  account: GitHubAccount | undefined;
  /** `here`: to this organization; `elsewhere`: to another one; null: to none. */
  linked: 'here' | 'elsewhere' | null;
}

export type GitHubProof =
  | { ok: true; installations: ReachableInstallation[] }
  | { ok: false; reason: 'code_refused' | 'github_unreachable'; message: string };

export type GitHubLinking = 'linked' | 'already' | 'taken' | 'forbidden';
export type GitHubUnlinking = 'unlinked' | 'not_found' | 'forbidden';

export type RepositorySetting =
  | 'done'
  | 'not_found'
  | 'forbidden'
  | 'invalid'
  /** Another project names it: its slug when it is of this organization (another organization's stays unnamed). */
  | { taken: string | undefined };

/** What the hub has told GitHub of a run GitHub started (github_runs), and its stand-alone messages (github_messages). */
export interface GitHubReport {
  /** The run's comment and check run; undefined when the hub owes GitHub no report of it. */
  run:
    | {
        commentId: number | null;
        checkRunId: number | null;
        startedReportedAt: Date | null;
        endedReportedAt: Date | null;
        attempts: number;
        lastError: string | null;
        delayedUntil: Date | null;
      }
    | undefined;
  messages: { kind: 'reaction' | 'reply'; sentAt: Date | null; lastError: string | null; delayedUntil: Date | null }[];
}

export interface GitHubPort {
  githubSettings(): GitHubSettings | undefined;
  githubInstallations(organizationId: string): Promise<LinkedInstallation[]>;
  /** The organization's projects that name a repository, by slug. */
  githubRepositories(organizationId: string): Promise<NamedRepository[]>;
  /** Exchanges GitHub's code for a user token and lists the installations of the app that the user can reach. */
  githubProof(organizationId: string, code: string, redirectUri: string): Promise<GitHubProof>;
  /** An owner links an installation they proved they can reach. */
  linkGitHubInstallation(
    accountId: string,
    organizationId: string,
    installationId: number,
    account: GitHubAccount | undefined,
  ): Promise<GitHubLinking>;
  unlinkGitHubInstallation(accountId: string, organizationId: string, installationId: number): Promise<GitHubUnlinking>;
  /** An owner names the project's repository (`owner/name`), or none with null. */
  setProjectRepository(
    accountId: string,
    organizationId: string,
    slug: string,
    repository: string | null,
  ): Promise<RepositorySetting>;
  githubReport(organizationId: string, runId: string): Promise<GitHubReport | undefined>;
}
