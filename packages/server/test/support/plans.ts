import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres, { type Sql } from 'postgres';
import { expect } from 'vitest';

/** A node of a plan as auto_explain reports it in JSON. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/**
 * One connection to a test hub's database with auto_explain on, for checking how statements read
 * their tables whatever the statistics say. `access(statement)` runs a statement 7 times
 * (PostgreSQL may plan the sixth execution of a prepared statement generically, and keep that
 * plan) and answers every way each table was read: "Index Scan trigger_runs_pkey", "Seq Scan",
 * an insert as "ModifyTable", … by table.
 */
export class PlanRecorder {
  private reported: PlanNode[] = [];
  readonly sql: Sql;

  constructor(hub: { databaseUrl?: string; dataDir: string }) {
    this.sql = postgres(hub.databaseUrl ?? readFileSync(join(hub.dataDir, 'database-url'), 'utf8').trim(), {
      max: 1,
      onnotice: (notice) => {
        const text = String(notice.message);
        const at = text.indexOf('{');
        if (text.startsWith('duration:') && at >= 0)
          this.reported.push((JSON.parse(text.slice(at)) as { Plan: PlanNode }).Plan);
      },
    });
  }

  /** Loads auto_explain on the connection, reporting every statement's plan as a notice. */
  async start(): Promise<this> {
    await this.sql`load 'auto_explain'`;
    await this
      .sql`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_format', 'json', false),
      set_config('auto_explain.log_level', 'notice', false), set_config('client_min_messages', 'notice', false)`;
    return this;
  }

  async access(statement: (sql: Sql, run: number) => Promise<unknown>): Promise<Record<string, string[]>> {
    this.reported = [];
    for (let run = 0; run < 7; run++) await statement(this.sql, run);
    expect(this.reported.length).toBeGreaterThanOrEqual(7);
    const all = new Map<string, Set<string>>();
    for (const plan of this.reported) accessOf(plan, all);
    const found = Object.fromEntries([...all].map(([table, ways]) => [table, [...ways].sort()]));
    if (process.env.SHOW_PLANS) console.log(JSON.stringify(found));
    return found;
  }

  async end(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

function accessOf(plan: PlanNode, into: Map<string, Set<string>>): void {
  const relation = plan['Relation Name'];
  if (relation !== undefined) {
    // A bitmap heap scan's indexes are in its Bitmap Index Scan children (under BitmapAnd/Or).
    const bitmaps = plan['Node Type'] === 'Bitmap Heap Scan' ? indexesBelow(plan) : [];
    const index = plan['Index Name'] ?? (bitmaps.length > 0 ? bitmaps.join('+') : undefined);
    const ways = into.get(relation) ?? new Set<string>();
    ways.add(index === undefined ? plan['Node Type'] : `${plan['Node Type']} ${index}`);
    into.set(relation, ways);
  }
  for (const child of plan.Plans ?? [])
    if (
      child['Node Type'] !== 'Bitmap Index Scan' &&
      child['Node Type'] !== 'BitmapAnd' &&
      child['Node Type'] !== 'BitmapOr'
    )
      accessOf(child, into);
}

function indexesBelow(plan: PlanNode): string[] {
  return (plan.Plans ?? []).flatMap((child) =>
    child['Node Type'] === 'Bitmap Index Scan' ? [child['Index Name'] as string] : indexesBelow(child),
  );
}
