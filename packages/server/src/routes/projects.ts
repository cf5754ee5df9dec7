import { OrganizationRepository } from '../db/organizations.js';
import { contextOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';

/** GET /api/v1/projects (section 4.1): read in the key check's own statement, one round trip. */
export function projectHandlers(): Handlers {
  return {
    listProjects: handle(({ req, res }) => void res.json({ projects: contextOf(req).prefetched }), { prefetch: OrganizationRepository.activeProjectsOfKey }),
  };
}
