import type { Response, Router } from 'express';
import { sessionCookie } from '../cookies.js';
import { field, newAccountProblem, SIGN_IN_THROTTLED, SIGN_IN_WRONG } from '../forms.js';
import { clientAddress, currentSession, formBody, refuseCrossSite, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { invitationPage } from '../pages/index.js';
import type { AcceptedInvitation, AcceptFailure, InvitationLookup } from '../ports/members.js';
import type { SessionView } from '../store.js';

type Closed = Exclude<InvitationLookup, { status: 'open' }>['status'];

const isClosed = (reason: AcceptFailure): reason is Closed =>
  reason === 'unknown' || reason === 'used' || reason === 'expired' || reason === 'revoked';

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
  revoked: {
    status: 410,
    title: 'Invitation ended',
    message:
      'This invitation link no longer works: it was revoked, or whoever made it is no longer an owner. Ask an owner for a new one.',
  },
};

const REFUSED: Record<Exclude<AcceptFailure, Closed>, { status: number; message: string }> = {
  // A wrong sign-in's answer, word for word: the form never says that an e-mail has an account.
  wrong_credentials: { status: 401, message: SIGN_IN_WRONG },
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
    const refuse = (refusal: Exclude<AcceptedInvitation, { ok: true }>) => {
      if (refusal.reason === 'throttled') {
        res.set('Retry-After', String(refusal.retryAfterSeconds));
        return again(429, SIGN_IN_THROTTLED);
      }
      if (isClosed(refusal.reason)) return closed(res, refusal.reason, signed?.session);
      const refused = REFUSED[refusal.reason];
      again(refused.status, refused.message);
    };
    if (signed) {
      const accepted = await store.acceptInvitation(token, signed.secret);
      return accepted.ok ? seeOther(res, '/keys') : refuse(accepted);
    }
    const password = field(req.body, 'password');
    const problem = newAccountProblem({ ...values, password });
    if (problem) return again(422, problem);
    const accepted = await store.acceptInvitationAsNewAccount(
      token,
      { name: values.name.trim(), email: values.email, password },
      clientAddress(req),
    );
    if (!accepted.ok) return refuse(accepted);
    if (accepted.sessionSecret !== undefined)
      res.append('Set-Cookie', sessionCookie(accepted.sessionSecret, publicUrl));
    seeOther(res, '/keys');
  });
}
