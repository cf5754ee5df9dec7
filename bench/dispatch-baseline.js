// @ts-check
// The baseline of `pnpm bench:dispatch`: a bare Express 5 app whose dispatch route parses the same
// JSON body and does one INSERT ... ON CONFLICT DO NOTHING into a table shaped like a run keyed
// by (organization, delivery key), through postgres.js with the hub's pool size, on the database
// the hub uses. Nothing else: no key check, no trigger lookup, no execution, no NOTIFY. Prints
// its URL on standard output.
import { createRequire } from 'node:module';
import express from 'express';

// postgres.js is the server's dependency, not the root's: resolved from packages/server.
const require = createRequire(new URL('../packages/server/package.json', import.meta.url));
const postgres = require('postgres');

const organizationId = process.env.BASELINE_ORGANIZATION_ID ?? '00000000-0000-0000-0000-000000000000';
const sql = postgres(process.env.BASELINE_DATABASE_URL, {
  max: 10,
  onnotice: () => {},
  connection: { application_name: 'hub-bench-baseline' },
});
await sql`
  create table if not exists bench_dispatch (
    organization_id uuid, delivery_key text, body jsonb, created_at timestamptz default now(),
    primary key (organization_id, delivery_key))`;

const app = express();
app.post('/api/v1/manual-runs', express.json({ limit: '16mb' }), async (req, res) => {
  const { deliveryKey } = req.body;
  await sql`
    insert into bench_dispatch (organization_id, delivery_key, body) values (${organizationId}, ${deliveryKey}, ${sql.json(req.body)})
    on conflict do nothing`;
  res.json({ deliveryKey, workflowStatus: 'running' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `listening on http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : ''}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => void sql.end({ timeout: 5 }).then(() => process.exit(0))));
