// How long history is kept, and the sweeps that keep to it (docs/decisions.md, Sweeps and retention).
export {
  DEFAULT_RETENTION,
  RETENTION_BATCH,
  RetentionRepository,
  type Pruned,
  type RetentionPolicy,
} from './policy.js';
export { startSweeper, type RetentionSchedule } from './sweeper.js';
