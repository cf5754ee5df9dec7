import type { Hub } from '../hub.js';
import { openApiDocument } from '../openapi/document.js';
import type { Route } from './registry.js';

/**
 * GET /api/openapi.json: the OpenAPI document of the public API, without a credential. Its
 * server is the hub's public URL: `publicUrl` where the options carry it, else the problem
 * base, which is the public URL unless HUB_PROBLEM_BASE says otherwise.
 */
export function openApiRoutes(hub: Hub): Route[] {
  const body = JSON.stringify(openApiDocument(hub.options.publicUrl ?? hub.options.problemBase, { maxBodyBytes: hub.options.maxBodyBytes }));
  return [
    {
      method: 'GET',
      path: '/api/openapi.json',
      handlers: [(_req, res) => void res.type('application/json').send(body)],
    },
  ];
}
