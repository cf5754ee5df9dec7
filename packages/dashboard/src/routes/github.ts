import type { Request, Response, Router } from 'express';
import { field } from '../forms.js';
import { acceptedOffer, githubState, linkOffer, validState } from '../github-proof.js';
import { formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions, Signed } from '../http.js';
import { githubChoicePage, githubPage } from '../pages/index.js';
import type { GitHubLinking, GitHubSettings } from '../ports/github.js';
import type { Membership } from '../store.js';

const SECTION = '/settings/github';
const back = { href: SECTION, text: 'Back to GitHub' };
const NOTICES: Record<string, (id: string) => string> = {
  linked: (id) => `The installation ${id} is linked to this organization: GitHub’s events from it reach its projects.`,
  unlinked: (id) => `The installation ${id} is unlinked: GitHub’s events from it are ignored until it is linked again.`,
};

/** An installation id as GitHub writes it in a query or a form; undefined otherwise. */
const installationIdOf = (text: unknown) =>
  typeof text === 'string' && /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text))
    ? Number(text)
    : undefined;

/**
 * Settings → GitHub: the organization's installations and repositories for everyone; for owners,
 * linking an installation they prove through GitHub that they administer (the app's installation
 * with user authorization, or GitHub's authorization alone), and unlinking (DECISIONS.md, GitHub).
 */
export function githubRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const callbackUrl = `${new URL(options.publicUrl).origin}${SECTION}/setup`;
  const authorizeUrl = (settings: GitHubSettings, secret: string) =>
    `${settings.webUrl}/login/oauth/authorize?${new URLSearchParams({
      client_id: settings.clientId as string,
      redirect_uri: callbackUrl,
      state: githubState(secret),
    })}`;

  /** The signed-in owner of the current organization, with GitHub on and the app's OAuth credentials; otherwise an answer was sent. */
  const owner = async (
    req: Request,
    res: Response,
    next?: string,
  ): Promise<{ signed: Signed; organization: Membership; settings: GitHubSettings } | undefined> => {
    const signed = await requireSession(options, req, res, next);
    if (!signed) return undefined;
    const { session } = signed;
    const organization = session.current;
    const settings = store.githubSettings();
    if (organization?.role !== 'owner') {
      sendMessage(res, 403, {
        title: 'Owners only',
        message: 'Only owners of the organization link and unlink GitHub installations.',
        link: back,
        session,
      });
      return undefined;
    }
    if (settings?.clientId === undefined) {
      sendMessage(res, 404, {
        title: 'GitHub linking is off',
        message:
          'This hub has no GitHub App with OAuth credentials, so owners cannot link installations here: the operator API does.',
        link: back,
        session,
      });
      return undefined;
    }
    return { signed, organization, settings };
  };

  router.get(SECTION, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const organizationId = session.current?.organizationId;
    const settings = store.githubSettings();
    const [installations, repositories] =
      organizationId === undefined
        ? [[], []]
        : await Promise.all([store.githubInstallations(organizationId), store.githubRepositories(organizationId)]);
    const canLink = session.current?.role === 'owner' && settings?.clientId !== undefined;
    const notice = Object.entries(NOTICES)
      .map(([name, text]) =>
        installationIdOf(req.query[name]) === undefined ? undefined : text(String(req.query[name])),
      )
      .find((text) => text !== undefined);
    sendPage(
      res,
      200,
      githubPage({
        session,
        settings,
        installations,
        repositories,
        callbackUrl,
        notice,
        ...(canLink && settings !== undefined
          ? {
              installUrl: `${settings.installUrl}?${new URLSearchParams({ state: githubState(signed.secret) })}`,
              authorizeUrl: authorizeUrl(settings, signed.secret),
            }
          : {}),
      }),
    );
  });

  /** What a link came to, as a page or a redirect to the settings page. */
  const answerLinking = (res: Response, signed: Signed, id: number, outcome: GitHubLinking) => {
    if (outcome === 'linked' || outcome === 'already') return seeOther(res, `${SECTION}?linked=${id}`);
    sendMessage(res, outcome === 'taken' ? 409 : 403, {
      title: outcome === 'taken' ? 'Linked to another organization' : 'Owners only',
      message:
        outcome === 'taken'
          ? `The installation ${id} is linked to another organization of this hub: an installation belongs to one organization. An owner there unlinks it first.`
          : 'Only owners of the organization link GitHub installations.',
      link: back,
      session: signed.session,
    });
  };

  // GitHub sends people back here: after installing the app (installation_id, setup_action, and,
  // with user authorization during installation, code), and after authorizing (code alone).
  router.get(`${SECTION}/setup`, async (req, res) => {
    const caller = await owner(req, res, req.originalUrl);
    if (!caller) return;
    const { signed, organization, settings } = caller;
    const { session } = signed;
    const refuse = (status: number, title: string, message: string) =>
      sendMessage(res, status, { title, message, link: back, session });
    const installationId = installationIdOf(req.query.installation_id);
    const code = typeof req.query.code === 'string' && req.query.code !== '' ? req.query.code : undefined;
    if (typeof req.query.error === 'string')
      return refuse(
        400,
        'GitHub did not authorize',
        'GitHub did not let the hub ask who you are, so nothing was linked.',
      );
    if (code === undefined) {
      // Installed without user authorization: ask GitHub who this is, then offer what they administer.
      const linked = await store.githubInstallations(organization.organizationId);
      const known = linked.some((installation) => installation.installationId === installationId);
      if (installationId !== undefined && !known) return seeOther(res, authorizeUrl(settings, signed.secret));
      return seeOther(res, SECTION);
    }
    if (!validState(signed.secret, req.query.state))
      return refuse(
        400,
        'Not from this session',
        'This answer from GitHub was not asked for by your session here, or it is too old, so nothing was linked. Start again from the GitHub page.',
      );
    const proof = await store.githubProof(organization.organizationId, code, callbackUrl);
    if (!proof.ok)
      return refuse(
        502,
        proof.reason === 'code_refused' ? 'GitHub refused the sign-in' : 'GitHub did not answer',
        `${proof.message} Nothing was linked: start again from the GitHub page.`,
      );
    if (installationId === undefined) {
      const installations = proof.installations.map((installation) => ({
        ...installation,
        offer:
          installation.linked === null
            ? linkOffer(signed.secret, organization.organizationId, installation.installationId, installation.account)
            : undefined,
      }));
      return sendPage(res, 200, githubChoicePage({ session, installations }));
    }
    const reached = proof.installations.find((installation) => installation.installationId === installationId);
    if (reached === undefined)
      return refuse(
        403,
        'Not an installation you administer',
        `GitHub does not list the installation ${installationId} among those your GitHub account can reach, so the hub cannot tell that you administer it. An administrator of the GitHub account it is installed on links it.`,
      );
    const outcome = await store.linkGitHubInstallation(
      session.account.id,
      organization.organizationId,
      installationId,
      reached.account,
    );
    answerLinking(res, signed, installationId, outcome);
  });

  router.post(`${SECTION}/installations`, ...post, async (req, res) => {
    const caller = await owner(req, res);
    if (!caller) return;
    const { signed, organization } = caller;
    const offer = {
      installationId: field(req.body, 'installationId'),
      login: field(req.body, 'login'),
      type: field(req.body, 'type'),
      expires: field(req.body, 'expires'),
      proof: field(req.body, 'proof'),
    };
    const accepted = acceptedOffer(signed.secret, organization.organizationId, offer);
    if (accepted === undefined)
      return sendMessage(res, 400, {
        title: 'Offer expired',
        message:
          'This offer to link an installation is too old, or was not made to your session here, so nothing was linked. Ask GitHub again from the GitHub page.',
        link: back,
        session: signed.session,
      });
    const outcome = await store.linkGitHubInstallation(
      signed.session.account.id,
      organization.organizationId,
      accepted.installationId,
      accepted.account,
    );
    answerLinking(res, signed, accepted.installationId, outcome);
  });

  router.post(`${SECTION}/installations/:id/unlink`, ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const id = installationIdOf(req.params.id);
    const outcome =
      session.current?.role !== 'owner'
        ? 'forbidden'
        : id === undefined
          ? 'not_found'
          : await store.unlinkGitHubInstallation(session.account.id, session.current.organizationId, id);
    if (outcome === 'unlinked') return seeOther(res, `${SECTION}?unlinked=${id}`);
    sendMessage(res, outcome === 'forbidden' ? 403 : 404, {
      title: outcome === 'forbidden' ? 'Owners only' : 'Not linked',
      message:
        outcome === 'forbidden'
          ? 'Only owners of the organization unlink GitHub installations.'
          : 'No installation of this id is linked to the organization.',
      link: back,
      session,
    });
  });
}
