// @hub/daemon's public surface: what the CLI's `hub daemon` commands, the hub's tests and other
// tools use of the reference daemon.
export { signingString, signRequest, type SignedHeaders, type SigningInput } from './signing.js';
export { HubClient, HubError, HubUnreachable, type Enrollment, type HubProblem } from './client.js';
export {
  parseDaemonConfig,
  runtimesOf,
  type ConfigIssue,
  type DaemonConfig,
  type ProviderConfig,
  type Runtime,
} from './config.js';
export { runExecution, type ExecutionOptions, type ExecutionStatus } from './supervisor.js';
export { runDaemon, type DaemonOptions } from './daemon.js';
export { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from './output.js';
export { sleep } from './backoff.js';
export { DaemonMetrics, type Outcome, type RequestKind } from './metrics.js';
