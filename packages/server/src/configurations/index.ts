// Configurations of projects (shape A, and B's legacy bundles): validating, compiling against the
// organization's resources, installing revisions. Triggers compile through compileForOrganization.
export {
  checkConfiguration,
  compileForOrganization,
  installConfiguration,
  type CompileDocument,
  type Compiled,
  type ConfigurationCheck,
  type ConfigurationInstall,
  type Invalid,
} from './service.js';
export { invalidProblem } from './problems.js';
export { RevisionRepository, type AuthoredConfiguration, type InstalledRevision } from './sql.js';
export { configurationHandlers } from './routes.js';
