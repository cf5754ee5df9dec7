import type { GitHubAccount, LinkedInstallation, NamedRepository } from '../ports/github.js';
import type { GitHubChoicePageProps, GitHubPageProps } from './github-props.js';
import { Layout, Notice } from './layout.js';
import { Time } from './times.js';

export const GITHUB_SECTION = '/settings/github';
const README = 'README.md, section “Connect GitHub”';

function Account({ account }: { account: GitHubAccount | undefined }) {
  if (account === undefined) return <span class="muted">not known yet</span>;
  return (
    <span>
      <code>{account.login}</code> <span class="muted">({account.type.toLowerCase()})</span>
    </span>
  );
}

/** Settings → GitHub: the app, the installations linked to the organization, and the repositories its projects name. */
export function GitHubPage(props: GitHubPageProps) {
  const { session, settings } = props;
  const owner = session.current?.role === 'owner';
  return (
    <Layout title="GitHub" session={session} section={GITHUB_SECTION}>
      <h1>GitHub</h1>
      <Notice message={props.notice} kind="notice" />
      {settings === undefined ? <Unconfigured /> : <Configured {...props} owner={owner} />}
      <h2>Linked installations</h2>
      <Installations installations={props.installations} owner={owner && settings !== undefined} />
      <h2>Repositories</h2>
      <Repositories repositories={props.repositories} />
    </Layout>
  );
}

function Unconfigured() {
  return (
    <div class="notice warning">
      <p>
        GitHub is off on this hub: it has no GitHub App. The operator creates one on GitHub, then starts the hub with{' '}
        <code>HUB_GITHUB_APP_ID</code>, <code>HUB_GITHUB_APP_SLUG</code>, <code>HUB_GITHUB_PRIVATE_KEY_FILE</code> and{' '}
        <code>HUB_GITHUB_WEBHOOK_SECRET</code> set (and <code>HUB_GITHUB_API_URL</code> for GitHub Enterprise Server;{' '}
        <code>HUB_GITHUB_CLIENT_ID</code> and <code>HUB_GITHUB_CLIENT_SECRET</code> so that owners can link
        installations here).
      </p>
      <p>How, step by step: {README}.</p>
    </div>
  );
}

function Configured(props: GitHubPageProps & { owner: boolean }) {
  const settings = props.settings as NonNullable<GitHubPageProps['settings']>;
  const appUrl = `${settings.webUrl}/apps/${encodeURIComponent(settings.slug)}`;
  return (
    <>
      <p>
        This hub’s GitHub App is <a href={appUrl}>{settings.slug}</a>: mention <code>@{settings.slug}</code> in an issue
        or pull request of a repository a project names, and the project’s triggers run. Its events reach this
        organization from the installations linked to it.
      </p>
      {!props.owner ? (
        <p class="muted">Owners of the organization link and unlink installations.</p>
      ) : settings.clientId === undefined ? (
        <p class="notice warning">
          The hub has no OAuth credentials of its app (<code>HUB_GITHUB_CLIENT_ID</code>,{' '}
          <code>HUB_GITHUB_CLIENT_SECRET</code>), so it cannot ask GitHub who you are: only the operator API links
          installations (
          <code>POST /api/admin/v1/organizations/{props.session.current?.slug}/github-installations</code>
          ). See {README}.
        </p>
      ) : (
        <>
          <p>
            To link an installation, prove to GitHub that you administer the account it is on: install the app (GitHub
            then sends you back here), or sign in to GitHub and choose among the installations you can reach.
          </p>
          <p class="actions">
            <a class="button" href={props.installUrl}>
              Install the app on GitHub
            </a>
            <a class="button secondary" href={props.authorizeUrl}>
              Link an installation you administer
            </a>
          </p>
          <p class="muted">
            The app’s callback URL on GitHub must be <code>{props.callbackUrl}</code>, with “Request user authorization
            (OAuth) during installation” on.
          </p>
        </>
      )}
    </>
  );
}

function Installations({ installations, owner }: { installations: LinkedInstallation[]; owner: boolean }) {
  if (installations.length === 0)
    return <p class="empty">No installation is linked to this organization: GitHub’s events do not reach it yet.</p>;
  return (
    <table class="list installations">
      <thead>
        <tr>
          <th scope="col">Account</th>
          <th scope="col">Installation</th>
          <th scope="col">Linked</th>
          {owner ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {installations.map((installation) => (
          <tr key={installation.installationId}>
            <td data-label="Account">
              <Account account={installation.account} />
            </td>
            <td data-label="Installation">
              <code>{installation.installationId}</code>
            </td>
            <td data-label="Linked">
              <span>
                <Time at={installation.linkedAt} />{' '}
                <span class="muted">
                  {installation.linkedBy === null ? 'by the operator' : `by ${installation.linkedBy}`}
                </span>
              </span>
            </td>
            {owner ? (
              <td data-label="Actions">
                <form
                  class="inline"
                  method="post"
                  action={`${GITHUB_SECTION}/installations/${installation.installationId}/unlink`}
                >
                  <button type="submit" class="secondary">
                    Unlink
                  </button>
                </form>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Repositories({ repositories }: { repositories: NamedRepository[] }) {
  if (repositories.length === 0)
    return (
      <p class="empty">No project names a repository yet: set one on a project’s page (owners), under “GitHub”.</p>
    );
  return (
    <table class="list repositories">
      <thead>
        <tr>
          <th scope="col">Project</th>
          <th scope="col">Repository</th>
        </tr>
      </thead>
      <tbody>
        {repositories.map((project) => (
          <tr key={project.slug}>
            <td data-label="Project">
              <a href={`/projects/${encodeURIComponent(project.slug)}`}>{project.name}</a>
            </td>
            <td data-label="Repository">
              <code>{project.repository}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** GitHub's answer to "Link an installation you administer": the installations the owner can reach, each with Link or why not. */
export function GitHubChoicePage({ session, installations }: GitHubChoicePageProps) {
  return (
    <Layout title="Link an installation" session={session} section={GITHUB_SECTION}>
      <p class="crumbs">
        <a href={GITHUB_SECTION}>GitHub</a>
      </p>
      <h1>Link an installation</h1>
      {installations.length === 0 ? (
        <p class="empty">
          GitHub lists no installation of the app that your GitHub account administers. Install the app first, or ask an
          administrator of the account it is installed on.
        </p>
      ) : (
        <>
          <p>GitHub lists these installations of the app as yours to administer.</p>
          <table class="list installations">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Installation</th>
                <th scope="col">Link</th>
              </tr>
            </thead>
            <tbody>
              {installations.map(({ installationId, account, linked, offer }) => (
                <tr key={installationId}>
                  <td data-label="Account">
                    <Account account={account} />
                  </td>
                  <td data-label="Installation">
                    <code>{installationId}</code>
                  </td>
                  <td data-label="Link">
                    {linked === 'here' ? (
                      <span class="status active">linked here</span>
                    ) : linked === 'elsewhere' ? (
                      <span class="muted">linked to another organization</span>
                    ) : offer === undefined ? null : (
                      <form class="inline" method="post" action={`${GITHUB_SECTION}/installations`}>
                        {Object.entries(offer).map(([name, value]) => (
                          <input key={name} type="hidden" name={name} value={value} />
                        ))}
                        <button type="submit">Link</button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <p>
        <a href={GITHUB_SECTION}>Back to GitHub</a>
      </p>
    </Layout>
  );
}
