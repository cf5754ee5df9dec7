// Daemons: enrollment (tokens, the daemon's identity), the resource catalog configurations are
// resolved against, presence (written by runs/protocol), and the dashboard's list and retirement.
export {
  enrollDaemon,
  findDaemon,
  issueEnrollmentToken,
  listDaemons,
  resourceCatalog,
  retireDaemon,
  retireDaemonsEnrolledBy,
  daemonsEnrolledBy,
  type Retirement,
  type IssuedToken,
} from './service.js';
export { DaemonRepository, type EnrollResult, type Runtime } from './sql.js';
export { DaemonListRepository, type DaemonListRow, type Enroller } from './list.js';
export { daemonHandlers } from './routes.js';
export { daemonStore } from './dashboard.js';
