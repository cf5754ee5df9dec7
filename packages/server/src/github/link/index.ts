// Linking GitHub to the hub (issue 27): installations of the hub's GitHub App linked to an
// organization, and the repository each project names; by the operator API and by owners in the
// dashboard, who prove through GitHub that they administer an installation.
export { operatorLinkHandlers, installationView } from './operator-routes.js';
export { linkInstallation, unlinkInstallation, setProjectRepository } from './service.js';
export { LinkRepository, type InstallationRow } from './sql.js';
export { githubStore } from './dashboard.js';
