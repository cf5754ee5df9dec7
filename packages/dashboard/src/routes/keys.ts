import type { Router } from 'express';
import { field, fields, keyProblem } from '../forms.js';
import {
  formBody,
  refuseCrossSite,
  requireOwner,
  requireSession,
  seeOther,
  sendForbidden,
  sendMessage,
  sendPage,
} from '../http.js';
import type { DashboardOptions } from '../http.js';
import { keyCreatedPage, keysPage, revokeKeyPage } from '../pages/index.js';
import { PAGE_SIZE, pageOf } from '../paging.js';
import type { SessionView } from '../store.js';

/** The organization's API keys: everyone lists them, owners create and revoke them. */
export function keyRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const keysOf = async (session: SessionView) => (session.current ? store.apiKeys(session.current.organizationId) : []);
  /** One page of the list: an organization has tens of keys, so the page is cut from the whole list. */
  const pageOfKeys = async (session: SessionView, page: number) => {
    const all = await keysOf(session);
    return {
      keys: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
      pages: { page, more: all.length > page * PAGE_SIZE },
    };
  };
  const notFound = (session: SessionView) => ({
    title: 'No such key',
    message: 'The organization has no active key of this id.',
    link: { href: '/keys', text: 'Back to API keys' },
    session,
  });

  router.get('/keys', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    sendPage(
      res,
      200,
      keysPage({ session: signed.session, scopes: options.scopes, ...(await pageOfKeys(signed.session, pageOf(req))) }),
    );
  });

  router.post('/keys', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && requireOwner(res, signed.session);
    if (!signed || !organization) return;
    const { session } = signed;
    const name = field(req.body, 'name');
    const scopes = [...new Set(fields(req.body, 'scopes'))];
    const problem = keyProblem(name, scopes, options.scopes);
    if (problem) {
      return sendPage(
        res,
        422,
        keysPage({
          session,
          scopes: options.scopes,
          ...(await pageOfKeys(session, 1)),
          form: { name, scopes, message: problem },
        }),
      );
    }
    const created = await store.createApiKey(session.account.id, organization.organizationId, {
      name: name.trim(),
      scopes,
    });
    if (!created.ok) return sendForbidden(res, session);
    sendPage(res, 201, keyCreatedPage({ session, name: name.trim(), prefix: created.prefix, secret: created.secret }));
  });

  router.get('/keys/:id/revoke', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed || !requireOwner(res, signed.session)) return;
    const apiKey = (await keysOf(signed.session)).find((key) => key.id === req.params.id && key.status === 'active');
    if (!apiKey) return sendMessage(res, 404, notFound(signed.session));
    sendPage(res, 200, revokeKeyPage({ session: signed.session, apiKey }));
  });

  router.post('/keys/:id/revoke', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    const organization = signed && requireOwner(res, signed.session);
    if (!signed || !organization) return;
    const { session } = signed;
    const outcome = await store.revokeApiKey(session.account.id, organization.organizationId, String(req.params.id));
    if (outcome === 'not_found') return sendMessage(res, 404, notFound(session));
    if (outcome === 'forbidden') return sendForbidden(res, session);
    seeOther(res, '/keys');
  });
}
