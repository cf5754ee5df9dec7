import type { Response, Router } from 'express';
import { field, newPasswordProblem, organizationProblem } from '../forms.js';
import { clientAddress, formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions, Signed } from '../http.js';
import { accountPage } from '../pages/index.js';
import type { AccountPageProps } from '../pages/index.js';

const NOTICES = {
  password: {
    text: 'Your password is changed: your other sessions have ended, and your CLI logins are revoked (run hub login again).',
    kind: 'notice',
  },
  'cli-login': {
    text: 'The CLI login is revoked: the hub refuses it from now on. Run hub login there to log in again.',
    kind: 'notice',
  },
} as const;

/** The account page: change the password, create a further organization, list and revoke CLI logins. */
export function settingsRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const render = async (
    res: Response,
    status: number,
    signed: Signed,
    props: Omit<AccountPageProps, 'session' | 'cliLogins'> = {},
  ) =>
    sendPage(
      res,
      status,
      accountPage({
        session: signed.session,
        cliLogins: await store.cliCredentials(signed.session.account.id),
        ...props,
      }),
    );

  router.get('/account', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    await render(res, 200, signed, {
      password: req.query.changed === 'password' ? NOTICES.password : undefined,
      cliNotice: req.query.revoked === 'cli-login' ? NOTICES['cli-login'] : undefined,
    });
  });

  router.post('/account/password', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const next = field(req.body, 'password');
    const refuse = (status: number, text: string) => render(res, status, signed, { password: { text, kind: 'error' } });
    const problem = newPasswordProblem(next, field(req.body, 'repeat'));
    if (problem) return refuse(422, problem);
    const outcome = await store.changePassword(signed.secret, field(req.body, 'current'), next, clientAddress(req));
    if (outcome === 'signed_out') return seeOther(res, '/sign-in');
    if (typeof outcome === 'object') {
      res.set('Retry-After', String(outcome.retryAfterSeconds));
      return refuse(429, 'Too many wrong passwords: wait a few minutes, then try again.');
    }
    if (outcome === 'wrong_password') return refuse(403, 'The current password is wrong.');
    if (outcome === 'invalid_input') return refuse(422, 'The hub could not accept this password: choose another.');
    seeOther(res, '/account?changed=password');
  });

  router.post('/account/organizations', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const slug = field(req.body, 'slug').trim();
    const name = field(req.body, 'name');
    const refuse = (status: number, message: string) =>
      render(res, status, signed, { organization: { slug, name, message } });
    const problem = organizationProblem(slug, name);
    if (problem) return refuse(422, problem);
    const outcome = await store.createOrganization(signed.secret, { slug, name: name.trim() });
    if (outcome === 'signed_out') return seeOther(res, '/sign-in');
    if (outcome === 'slug_taken')
      return refuse(409, 'An organization with this slug exists already: choose another slug.');
    if (outcome === 'invalid_input') return refuse(422, 'The hub could not accept these values: check each field.');
    seeOther(res, '/keys');
  });

  router.post('/account/cli-logins/:id/revoke', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    if ((await store.revokeCliCredential(signed.session.account.id, String(req.params.id))) === 'not_found') {
      return sendMessage(res, 404, {
        title: 'No such CLI login',
        message: 'You have no CLI login of this id.',
        link: { href: '/account#cli-logins', text: 'Back to your account' },
        session: signed.session,
      });
    }
    seeOther(res, '/account?revoked=cli-login#cli-logins');
  });
}
