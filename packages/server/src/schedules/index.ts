// Schedules (DECISIONS.md, Schedules): the entries of active configurations, and the scheduler that fires them.
export { ScheduleRepository, SCHEDULE_CHANNEL } from './sql.js';
export { startScheduler, type SchedulerOptions } from './scheduler.js';
export { clockOf, realClock, type Clock } from './clock.js';
export { planTick, tickDeliveryKey, MISSED_TICK_GRACE_MS } from './ticks.js';
