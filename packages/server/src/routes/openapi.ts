import type { Hub } from '../hub.js';
import { hubDocument } from '../openapi/document.js';
import type { Route } from './registry.js';

/** GET /api/openapi.json: the OpenAPI document of the public API, without a credential. */
export function openApiRoutes(hub: Hub): Route[] {
  const body = JSON.stringify(hubDocument(hub.options));
  return [
    {
      method: 'GET',
      path: '/api/openapi.json',
      handlers: [(_req, res) => void res.type('application/json').send(body)],
    },
  ];
}
