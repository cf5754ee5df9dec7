import type { Router } from 'express';
import { field } from '../forms.js';
import { formBody, refuseCrossSite, requireSession, seeOther, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { newPasswordProblem, organizationProblem } from '../member-forms.js';
import { accountPage } from '../pages/index.js';

/** The account page: change the password, create a further organization. */
export function settingsRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];

  router.get('/account', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const notice = req.query.changed === 'password' ? { text: 'Your password is changed, and your other sessions have ended.', kind: 'notice' as const } : undefined;
    sendPage(res, 200, accountPage({ session: signed.session, password: notice }));
  });

  router.post('/account/password', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const next = field(req.body, 'password');
    const refuse = (status: number, text: string) => sendPage(res, status, accountPage({ session: signed.session, password: { text, kind: 'error' } }));
    const problem = newPasswordProblem(next, field(req.body, 'repeat'));
    if (problem) return refuse(422, problem);
    const outcome = await store.changePassword(signed.secret, field(req.body, 'current'), next);
    if (outcome === 'signed_out') return seeOther(res, '/sign-in');
    if (outcome === 'wrong_password') return refuse(403, 'The current password is wrong.');
    if (outcome === 'invalid_input') return refuse(422, 'The hub could not accept this password: choose another.');
    seeOther(res, '/account?changed=password');
  });

  router.post('/account/organizations', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const slug = field(req.body, 'slug').trim();
    const name = field(req.body, 'name');
    const refuse = (status: number, message: string) => sendPage(res, status, accountPage({ session: signed.session, organization: { slug, name, message } }));
    const problem = organizationProblem(slug, name);
    if (problem) return refuse(422, problem);
    const outcome = await store.createOrganization(signed.secret, { slug, name: name.trim() });
    if (outcome === 'signed_out') return seeOther(res, '/sign-in');
    if (outcome === 'slug_taken') return refuse(409, 'An organization with this slug exists already: choose another slug.');
    if (outcome === 'invalid_input') return refuse(422, 'The hub could not accept these values: check each field.');
    seeOther(res, '/keys');
  });
}
