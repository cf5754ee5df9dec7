import type { Response, Router } from 'express';
import { formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { daemonsPage, retireDaemonPage } from '../pages/index.js';
import { pageOf, rowsOf } from '../paging.js';
import type { Membership, SessionView } from '../store.js';

/** The organization's daemons: everyone lists them, owners retire them. */
export function daemonRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const notFound = (res: Response, session: SessionView) =>
    sendMessage(res, 404, {
      title: 'No such daemon',
      message: 'The organization has no active daemon of this id.',
      link: { href: '/daemons', text: 'Back to daemons' },
      session,
    });
  const forbidden = (res: Response, session: SessionView) =>
    sendMessage(res, 403, {
      title: 'Owners only',
      message: 'Only owners of the organization retire its daemons.',
      link: { href: '/daemons', text: 'Back to daemons' },
      session,
    });
  const owner = (res: Response, session: SessionView): Membership | undefined => {
    if (session.current?.role === 'owner') return session.current;
    forbidden(res, session);
    return undefined;
  };

  router.get('/daemons', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const retired = req.query.retired === '1';
    const page = pageOf(req);
    const list = session.current
      ? await store.daemons(session.current.organizationId, { retired, ...rowsOf(page) })
      : { daemons: [], more: false };
    sendPage(res, 200, daemonsPage({ session, daemons: list.daemons, retired, page, more: list.more }));
  });

  router.get('/daemons/:id/retire', async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owner(res, signed.session);
    if (!signed || !organization) return;
    const daemon = await store.daemon(organization.organizationId, String(req.params.id));
    if (!daemon || daemon.retiredAt) return notFound(res, signed.session);
    sendPage(res, 200, retireDaemonPage({ session: signed.session, daemon }));
  });

  router.post('/daemons/:id/retire', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && owner(res, signed.session);
    if (!signed || !organization) return;
    const { session } = signed;
    const outcome = await store.retireDaemon(session.account.id, organization.organizationId, String(req.params.id));
    if (outcome === 'not_found') return notFound(res, session);
    if (outcome === 'forbidden') return forbidden(res, session);
    seeOther(res, '/daemons');
  });
}
