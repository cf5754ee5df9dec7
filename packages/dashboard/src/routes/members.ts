import type { Response, Router } from 'express';
import { field } from '../forms.js';
import { formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { invitationCreatedPage, leavePage, membersPage, removeMemberPage } from '../pages/index.js';
import { PAGE_SIZE, pageOf } from '../paging.js';
import type { MemberChange } from '../ports/members.js';
import type { Membership, SessionView } from '../store.js';

/** Members on a page. */

const LAST_OWNER =
  "The organization's last owner cannot leave, be removed or become a member: make another member an owner first.";

/** The organization's members: everyone lists them and may leave; owners invite, remove and change roles. */
export function memberRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const back = { href: '/members', text: 'Back to members' };

  const owned = (res: Response, session: SessionView): Membership | undefined => {
    if (session.current?.role === 'owner') return session.current;
    sendMessage(res, 403, {
      title: 'Owners only',
      message: 'Only owners of the organization invite and manage its members.',
      link: back,
      session,
    });
    return undefined;
  };
  const answer = async (res: Response, session: SessionView, outcome: MemberChange, done: string) => {
    if (outcome === 'done') return seeOther(res, done);
    if (outcome === 'forbidden') return void owned(res, { ...session, current: undefined });
    if (outcome === 'not_found')
      return sendMessage(res, 404, {
        title: 'No such member',
        message: 'The organization has no member of this id.',
        link: back,
        session,
      });
    const page = await load(session, 1);
    sendPage(res, 409, membersPage({ session, ...page, notice: { text: LAST_OWNER, kind: 'error' } }));
  };
  const load = async (session: SessionView, page: number) => {
    if (!session.current) return { members: [], invitations: [], page, next: false, owners: 0 };
    const [rows, invitations, owners] = await Promise.all([
      store.members(session.current.organizationId, {
        offset: (page - 1) * PAGE_SIZE,
        limit: PAGE_SIZE + 1,
      }),
      store.invitations(session.current.organizationId),
      store.ownerCount(session.current.organizationId),
    ]);
    return { members: rows.slice(0, PAGE_SIZE), invitations, page, next: rows.length > PAGE_SIZE, owners };
  };

  router.get('/members', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    sendPage(res, 200, membersPage({ session: signed.session, ...(await load(signed.session, pageOf(req))) }));
  });

  router.post('/members/invitations', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owned(res, signed.session);
    if (!signed || !organization) return;
    const role = field(req.body, 'role') === 'owner' ? 'owner' : 'member';
    const created = await store.createInvitation(signed.session.account.id, organization.organizationId, role);
    if (!created.ok) return void owned(res, { ...signed.session, current: undefined });
    const link = `${options.publicUrl.replace(/\/+$/, '')}/invitations/${encodeURIComponent(created.token)}`;
    sendPage(res, 201, invitationCreatedPage({ session: signed.session, link, role, expiresAt: created.expiresAt }));
  });

  router.post('/members/invitations/:id/revoke', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owned(res, signed.session);
    if (!signed || !organization) return;
    const outcome = await store.revokeInvitation(
      signed.session.account.id,
      organization.organizationId,
      String(req.params.id),
    );
    if (outcome === 'revoked') return seeOther(res, '/members');
    if (outcome === 'forbidden') return void owned(res, { ...signed.session, current: undefined });
    sendMessage(res, 404, {
      title: 'No such invitation',
      message: 'The organization has no open invitation of this id: it was accepted, revoked, or has expired.',
      link: back,
      session: signed.session,
    });
  });

  router.get('/members/leave', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const current = signed.session.current;
    if (!current) return seeOther(res, '/members');
    // Its only owner is not offered a button that would be refused (409): the page says why.
    const [daemons, owners] = await Promise.all([
      store.enrolledDaemons(current.organizationId, signed.session.account.id),
      store.ownerCount(current.organizationId),
    ]);
    const soleOwner = current.role === 'owner' && owners <= 1;
    sendPage(res, 200, leavePage({ session: signed.session, daemons, soleOwner }));
  });

  router.post('/members/leave', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    if (!session.current) return seeOther(res, '/members');
    await answer(
      res,
      session,
      await store.leaveOrganization(session.account.id, session.current.organizationId),
      '/account',
    );
  });

  router.get('/members/:id/remove', async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owned(res, signed.session);
    if (!signed || !organization) return;
    const member = await store.member(organization.organizationId, String(req.params.id));
    if (!member) return answer(res, signed.session, 'not_found', '/members');
    const daemons = await store.enrolledDaemons(organization.organizationId, member.accountId);
    sendPage(res, 200, removeMemberPage({ session: signed.session, member, daemons }));
  });

  router.post('/members/:id/remove', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owned(res, signed.session);
    if (!signed || !organization) return;
    const { session } = signed;
    const memberId = String(req.params.id);
    const outcome = await store.removeMember(session.account.id, organization.organizationId, memberId);
    await answer(res, session, outcome, memberId === session.account.id ? '/account' : '/members');
  });

  router.post('/members/:id/role', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owned(res, signed.session);
    if (!signed || !organization) return;
    const role = field(req.body, 'role');
    if (role !== 'owner' && role !== 'member')
      return sendMessage(res, 422, {
        title: 'No such role',
        message: 'A member is an owner or a member.',
        link: back,
        session: signed.session,
      });
    const outcome = await store.changeRole(
      signed.session.account.id,
      organization.organizationId,
      String(req.params.id),
      role,
    );
    await answer(res, signed.session, outcome, '/members');
  });
}
