// Organizations and their projects: the operator API's, the key-facing listing, the dashboard's
// pages, and the one role check of changes to an organization.
export { asOwner, type Changer, type Forbidden } from './owners.js';
export {
  activeProject,
  createOrganization,
  createProject,
  listOrganizations,
  listProjects,
  organizationBySlug,
  setProjectActive,
  type OrganizationCreation,
  type ProjectCreation,
  type ProjectActivation,
} from './service.js';
export { OrganizationRepository, type Organization, type Project } from './sql.js';
export { ProjectList, type ProjectPage } from './list.js';
export { operatorHandlers, operatorOrganization, operatorProjectView } from './operator-routes.js';
export { projectHandlers } from './routes.js';
export { projectStore } from './dashboard.js';
