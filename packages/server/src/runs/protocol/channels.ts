/** The NOTIFY channel on which a new assignment names its daemon (LISTEN in runs/protocol/wakeups.ts). */
export const ASSIGNMENT_CHANNEL = 'hub_assignments';

/** The NOTIFY channel on which an execution's new output, or its end, names it (sent by triggers of migration 007). */
export const OUTPUT_CHANNEL = 'hub_execution_output';
