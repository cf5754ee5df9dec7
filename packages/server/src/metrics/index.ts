// Metrics (DECISIONS.md, Metrics): the registry, what counts into it, and GET /metrics.
export {
  countCompleted,
  countDelivery,
  countStarted,
  dispatchToAssignment,
  scheduleTicks,
  registry,
} from './registry.js';
export { countAnswer, metricsRoute, type MetricsOptions } from './routes.js';
