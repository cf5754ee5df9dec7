-- Throttling (issue 14): failures counted per key (`auth-address:<ip>`, `auth-key:<prefix>`,
-- `enroll-address:<ip>`, `device-address:<ip>`) in fixed windows that start at a key's first
-- failure, one row per key, so that the count holds across every hub instance. A counted failure
-- is one upsert (db/throttle.ts); rows whose window has ended are pruned as failures come.
create table throttle_counters (
  key text primary key check (length(key) <= 200),
  failures integer not null check (failures > 0),
  resets_at timestamptz not null
);
create index throttle_counters_resets_at on throttle_counters (resets_at);
