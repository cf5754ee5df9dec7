/** The NOTIFY channel on which a new assignment names its daemon (LISTEN in dispatch/wakeups.ts). */
export const ASSIGNMENT_CHANNEL = 'hub_assignments';
