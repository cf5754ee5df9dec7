// @hub/cli's public surface: what the hub's tests and other tools use of the reference daemon.
export { signingString, signRequest, type SignedHeaders, type SigningInput } from './daemon/signing.js';
export { HubClient, HubError, HubUnreachable, type Enrollment, type HubProblem } from './daemon/client.js';
export { runExecution, type ExecutionOptions, type ExecutionStatus } from './daemon/supervisor.js';
export type { ProviderConfig, Runtime } from './daemon/config.js';
export { normalizeOrigin } from './origin.js';
