// The data the GitHub pages render: plain values, loaded by routes/github.ts.
import type { LinkOffer } from '../github-proof.js';
import type { GitHubSettings, LinkedInstallation, NamedRepository, ReachableInstallation } from '../ports/github.js';
import type { SessionView } from '../store.js';

export interface GitHubPageProps {
  session: SessionView;
  /** The hub's GitHub App; undefined when GitHub is off. */
  settings: GitHubSettings | undefined;
  installations: LinkedInstallation[];
  repositories: NamedRepository[];
  /** For owners, with GitHub on: GitHub's page that installs the app, carrying this session's state. */
  installUrl?: string | undefined;
  /** For owners, with the app's OAuth credentials: GitHub's authorization, whose answer lists the installations they reach. */
  authorizeUrl?: string | undefined;
  /** The hub's address that GitHub sends people back to: the app's callback (and setup) URL. */
  callbackUrl: string;
  notice?: string | undefined;
}

export interface GitHubChoicePageProps {
  session: SessionView;
  /** What GitHub listed for the signed-in owner, each not yet linked with its signed offer. */
  installations: (ReachableInstallation & { offer?: LinkOffer | undefined })[];
}
