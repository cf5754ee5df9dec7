import type { Hub, HubOptions } from '../hub.js';
import { openApiDocument } from '../openapi/document.js';
import type { Route } from './registry.js';

/**
 * GET /api/openapi.json: the OpenAPI document of the public API, without a credential. Its
 * server is the hub's public URL: `publicUrl` where the options carry it, else the problem
 * base, which is the public URL unless HUB_PROBLEM_BASE says otherwise.
 */
export function openApiRoutes(hub: Hub): Route[] {
  const options: HubOptions & { publicUrl?: string } = hub.options;
  const body = JSON.stringify(openApiDocument(options.publicUrl ?? options.problemBase, { maxBodyBytes: options.maxBodyBytes }));
  return [
    {
      method: 'GET',
      path: '/api/openapi.json',
      handlers: [(_req, res) => void res.type('application/json').send(body)],
    },
  ];
}
