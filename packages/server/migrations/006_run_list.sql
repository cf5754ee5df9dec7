-- The dashboard lists an organization's runs newest first, a page at a time (keyset on created_at, id).
create index trigger_runs_organization_created on trigger_runs (organization_id, created_at desc, id desc);
