import type { Response, Router } from 'express';
import { sessionCookie } from '../cookies.js';
import { field, newAccountProblem } from '../forms.js';
import { currentSession, formBody, refuseCrossSite, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { invitationPage } from '../pages/index.js';
import type { AcceptFailure, InvitationLookup } from '../ports/members.js';
import type { SessionView } from '../store.js';

type Closed = Exclude<InvitationLookup, { status: 'open' }>['status'];

const isClosed = (reason: AcceptFailure): reason is Closed =>
  reason === 'unknown' || reason === 'used' || reason === 'expired';

const CLOSED: Record<Closed, { status: number; title: string; message: string }> = {
  unknown: {
    status: 404,
    title: 'No such invitation',
    message: 'This invitation link is not valid. Ask an owner of the organization for a new one.',
  },
  used: {
    status: 410,
    title: 'Invitation used',
    message: 'This invitation link was used already: each works once. Ask an owner for a new one.',
  },
  expired: {
    status: 410,
    title: 'Invitation expired',
    message: 'This invitation link has expired (they work for 7 days). Ask an owner for a new one.',
  },
};

const REFUSED: Record<Exclude<AcceptFailure, Closed>, { status: number; message: string }> = {
  email_taken: {
    status: 409,
    message: 'An account with this e-mail exists already: sign in, then open this link again.',
  },
  already_member: { status: 409, message: 'Your account is a member of this organization already.' },
  invalid_input: { status: 422, message: 'The hub could not accept these values: check each field.' },
  signed_out: { status: 401, message: 'Your session has ended: open this link again.' },
};

/** Invitation links: anyone may open one; accepting it makes an account or joins the signed-in one. */
export function invitationRoutes(router: Router, options: DashboardOptions): void {
  const { store, publicUrl } = options;

  const closed = (res: Response, status: Closed, session: SessionView | undefined) => {
    const { status: code, title, message } = CLOSED[status];
    sendMessage(res, code, {
      title,
      message,
      link: session ? { href: '/keys', text: 'Go to the dashboard' } : { href: '/sign-in', text: 'Sign in' },
      session,
    });
  };

  router.get('/invitations/:token', async (req, res) => {
    const signed = await currentSession(store, req);
    const found = await store.invitation(String(req.params.token));
    if (found.status !== 'open') return closed(res, found.status, signed?.session);
    const { organizationName, role, expiresAt } = found;
    sendPage(
      res,
      200,
      invitationPage({
        token: String(req.params.token),
        organizationName,
        role,
        expiresAt,
        session: signed?.session,
        values: { name: '', email: '' },
      }),
    );
  });

  router.post('/invitations/:token', refuseCrossSite(options), formBody, async (req, res) => {
    const token = String(req.params.token);
    const signed = await currentSession(store, req);
    const found = await store.invitation(token);
    if (found.status !== 'open') return closed(res, found.status, signed?.session);
    const values = { name: field(req.body, 'name'), email: field(req.body, 'email').trim() };
    const again = (status: number, message: string) =>
      sendPage(
        res,
        status,
        invitationPage({
          token,
          organizationName: found.organizationName,
          role: found.role,
          expiresAt: found.expiresAt,
          session: signed?.session,
          values,
          message,
        }),
      );
    const refuse = (reason: AcceptFailure) => {
      if (isClosed(reason)) return closed(res, reason, signed?.session);
      const refused = REFUSED[reason];
      again(refused.status, refused.message);
    };
    if (signed) {
      const accepted = await store.acceptInvitation(token, signed.secret);
      return accepted.ok ? seeOther(res, '/keys') : refuse(accepted.reason);
    }
    const password = field(req.body, 'password');
    const problem = newAccountProblem({ ...values, password });
    if (problem) return again(422, problem);
    const accepted = await store.acceptInvitationAsNewAccount(token, {
      name: values.name.trim(),
      email: values.email,
      password,
    });
    if (!accepted.ok) return refuse(accepted.reason);
    if (accepted.sessionSecret !== undefined)
      res.append('Set-Cookie', sessionCookie(accepted.sessionSecret, publicUrl));
    seeOther(res, '/keys');
  });
}
