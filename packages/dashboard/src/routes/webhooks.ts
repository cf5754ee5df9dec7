import type { Request, Response, Router } from 'express';
import { field, fields, webhookProblem } from '../forms.js';
import { formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions, Signed } from '../http.js';
import {
  deleteWebhookPage,
  webhookCreatedPage,
  webhookDeliveryPage,
  webhookEndpointPage,
  webhooksPage,
} from '../pages/index.js';
import type { WebhookFormValues } from '../pages/index.js';
import type { WebhookEndpointRow } from '../ports/webhooks.js';
import type { Membership, SessionView } from '../store.js';

const SECTION = '/webhooks';
export const DELIVERIES_PER_PAGE = 50;
const back = { href: SECTION, text: 'Back to webhooks' };
const endpointPath = (id: string) => `${SECTION}/${encodeURIComponent(id)}`;

/**
 * Webhooks (DECISIONS.md, Outbound webhooks): the organization's endpoints and their delivery
 * log for everyone; owners add, delete and enable endpoints again, and resend deliveries. The
 * store's changes go through the hub's service, which checks the role again and audits them.
 */
export function webhookRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const ownersOnly = (res: Response, session: SessionView) =>
    sendMessage(res, 403, {
      title: 'Owners only',
      message: 'Only owners of the organization add, delete and enable webhook endpoints, and resend deliveries.',
      link: back,
      session,
    });
  const notFound = (res: Response, session: SessionView, what = 'endpoint') =>
    sendMessage(res, 404, {
      title: `No such ${what}`,
      message: `The organization has no webhook ${what} of this id.`,
      link: back,
      session,
    });

  /** The signed-in owner of the current organization; otherwise an answer was sent. */
  const owner = async (
    req: Request,
    res: Response,
  ): Promise<{ signed: Signed; organization: Membership } | undefined> => {
    const signed = await requireSession(options, req, res);
    if (!signed) return undefined;
    const organization = signed.session.current;
    if (organization?.role === 'owner') return { signed, organization };
    ownersOnly(res, signed.session);
    return undefined;
  };

  /** The signed-in person and the current organization's endpoint of the path; otherwise an answer was sent. */
  const endpointOf = async (
    req: Request,
    res: Response,
  ): Promise<{ session: SessionView; organizationId: string; endpoint: WebhookEndpointRow } | undefined> => {
    const signed = await requireSession(options, req, res);
    if (!signed) return undefined;
    const { session } = signed;
    const organizationId = session.current?.organizationId;
    const endpoint = organizationId && (await store.webhookEndpoint(organizationId, String(req.params.id)));
    if (!endpoint || !organizationId) return void notFound(res, session);
    return { session, organizationId, endpoint };
  };

  const listPage = async (session: SessionView, extra: { form?: WebhookFormValues; notice?: string } = {}) =>
    webhooksPage({
      session,
      endpoints: session.current ? await store.webhookEndpoints(session.current.organizationId) : [],
      ...extra,
    });

  router.get(SECTION, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const notice = req.query.deleted === '1' ? 'The endpoint is deleted, and its delivery log with it.' : undefined;
    sendPage(res, 200, await listPage(signed.session, notice === undefined ? {} : { notice }));
  });

  router.post(SECTION, ...post, async (req, res) => {
    const caller = await owner(req, res);
    if (!caller) return;
    const { session } = caller.signed;
    const values: WebhookFormValues = {
      url: field(req.body, 'url').trim(),
      events: [...new Set(fields(req.body, 'events'))],
      description: field(req.body, 'description').trim(),
    };
    const refuse = async (problem: { url?: string | undefined; other?: string | undefined }) =>
      sendPage(
        res,
        422,
        await listPage(session, { form: { ...values, urlMessage: problem.url, message: problem.other } }),
      );
    const problem = webhookProblem(values.url, values.events, values.description);
    if (problem.url !== undefined || problem.other !== undefined) return refuse(problem);
    const created = await store.createWebhookEndpoint(session.account.id, caller.organization.organizationId, {
      url: values.url,
      events: values.events,
      description: values.description === '' ? undefined : values.description,
    });
    if (!created.ok && created.reason === 'destination') return refuse({ url: created.message });
    if (!created.ok) return ownersOnly(res, session);
    sendPage(res, 201, webhookCreatedPage({ session, endpoint: created.endpoint, secret: created.secret }));
  });

  router.get(`${SECTION}/:id`, async (req, res) => {
    const found = await endpointOf(req, res);
    if (!found) return;
    const { session, organizationId, endpoint } = found;
    const cursor = typeof req.query.before === 'string' && req.query.before !== '' ? req.query.before : undefined;
    const list = (await store.webhookDeliveries(organizationId, endpoint.id, {
      cursor,
      limit: DELIVERIES_PER_PAGE,
    })) ?? { deliveries: [], older: undefined };
    const path = endpointPath(endpoint.id);
    sendPage(
      res,
      200,
      webhookEndpointPage({
        session,
        endpoint,
        deliveries: list.deliveries,
        olderHref: list.older === undefined ? undefined : `${path}?before=${encodeURIComponent(list.older)}`,
        paged: cursor !== undefined,
        notice: req.query.enabled === '1' ? 'The endpoint is enabled again: its waiting events go out now.' : undefined,
      }),
    );
  });

  router.get(`${SECTION}/:id/delete`, async (req, res) => {
    const found = await endpointOf(req, res);
    if (!found) return;
    if (found.session.current?.role !== 'owner') return ownersOnly(res, found.session);
    sendPage(res, 200, deleteWebhookPage({ session: found.session, endpoint: found.endpoint }));
  });

  /** Delete and enable: the store's answer as a redirect, or the page that says why not. */
  const change = (action: 'delete' | 'enable', done: (id: string) => string) =>
    router.post(`${SECTION}/:id/${action}`, ...post, async (req, res) => {
      const caller = await owner(req, res);
      if (!caller) return;
      const { session } = caller.signed;
      const id = String(req.params.id);
      const organizationId = caller.organization.organizationId;
      const outcome =
        action === 'delete'
          ? await store.deleteWebhookEndpoint(session.account.id, organizationId, id)
          : await store.enableWebhookEndpoint(session.account.id, organizationId, id);
      if (outcome === 'not_found') return notFound(res, session);
      if (outcome === 'forbidden') return ownersOnly(res, session);
      seeOther(res, done(id));
    });
  change('delete', () => `${SECTION}?deleted=1`);
  change('enable', (id) => `${endpointPath(id)}?enabled=1`);

  router.get(`${SECTION}/:id/deliveries/:deliveryId`, async (req, res) => {
    const found = await endpointOf(req, res);
    if (!found) return;
    const { session, organizationId, endpoint } = found;
    const detail = await store.webhookDelivery(organizationId, endpoint.id, String(req.params.deliveryId));
    if (detail === undefined) return notFound(res, session, 'delivery');
    const notice =
      req.query.resent === '1'
        ? 'Resent: this is a new delivery of the event, with the same webhook-id, so that the receiver can tell it is a repeat.'
        : undefined;
    sendPage(res, 200, webhookDeliveryPage({ session, endpoint, detail, notice }));
  });

  router.post(`${SECTION}/:id/deliveries/:deliveryId/resend`, ...post, async (req, res) => {
    const caller = await owner(req, res);
    if (!caller) return;
    const { session } = caller.signed;
    const id = String(req.params.id);
    const resent = await store.resendWebhookDelivery(
      session.account.id,
      caller.organization.organizationId,
      id,
      String(req.params.deliveryId),
    );
    if (resent.ok) return seeOther(res, `${endpointPath(id)}/deliveries/${resent.delivery.id}?resent=1`);
    if (resent.reason === 'forbidden') return ownersOnly(res, session);
    if (resent.reason === 'not_found') return notFound(res, session, 'delivery');
    sendMessage(res, 409, {
      title: 'Endpoint disabled',
      message:
        'The endpoint is disabled, so the hub sends it nothing, resends included. Enable it again on its page, then resend.',
      link: { href: endpointPath(id), text: 'Go to the endpoint' },
      session,
    });
  });
}
