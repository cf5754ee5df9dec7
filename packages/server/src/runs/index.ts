// Manual runs: their dispatch, views, output and cancellation, and the daemon protocol's
// execution side. What the rest of the hub uses of them.
export { runHandlers } from './routes.js';
export { daemonProtocolHandlers } from './protocol/routes.js';
export { runStore } from './dashboard.js';
export { ExecutionRepository } from './executions.js';
export { DEFAULT_TIMING, type DispatchTiming } from './protocol/presence.js';
export { OUTPUT_CHANNEL } from './protocol/channels.js';
export { DEFAULT_STREAM_RECHECK_MS, sendOutput } from './output/stream.js';
export type { OutputServer } from './output/dashboard.js';
export { Wakeups } from './protocol/wakeups.js';
export { projectWorkStore } from './project-work.js';
export { dispatcherOf } from './dispatch/routes.js';
export type { Dispatcher } from './dispatch/model.js';
export { startUnattendedRun, type UnattendedRun, type UnattendedOutcome } from './dispatch/unattended.js';
export { AssignmentNotices } from './dispatch/notices.js';
