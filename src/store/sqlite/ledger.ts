// The request ledger: every request sent, per lookup and quota period, with its status; and the
// service's "quota replenished in" answer, until which nothing is sent to that lookup.
import type { Lookup } from "../../spec/fields.js";
import { tableExists, type Db } from "./db.js";
import { perLookup } from "../../spec/lookups.js";

export interface SentRequest {
  lookup: Lookup;
  /** HTTP status; null for a network failure */
  status: number | null;
  at: string;
}

export interface Ledger {
  /** requests recorded for the lookup in the period */
  used(lookup: Lookup, period: string): number;
  record(r: SentRequest, period: string): void;
  /** the service said the lookup's quota is spent until `until` */
  block(lookup: Lookup, until: string, message: string): void;
  /** the block in force at `now`, if any */
  blocked(lookup: Lookup, now: string): { until: string; message: string } | null;
}

export function requestLedger(db: Db, runId: number): Ledger {
  const count = db.prepare("SELECT COUNT(*) FROM request_ledger WHERE lookup = ? AND period = ?").pluck();
  const insert = db.prepare("INSERT INTO request_ledger (lookup, period, sent_at, status, run_id) VALUES (?, ?, ?, ?, ?)");
  const upsertBlock = db.prepare(
    `INSERT INTO quota_blocks (lookup, until, message, run_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (lookup) DO UPDATE SET until = excluded.until, message = excluded.message, run_id = excluded.run_id`,
  );
  const selectBlock = db.prepare("SELECT until, message FROM quota_blocks WHERE lookup = ? AND until > ?");
  return {
    used: (lookup, period) => count.get(lookup, period) as number,
    record: (r, period) => void insert.run(r.lookup, period, r.at, r.status, runId),
    block: (lookup, until, message) => void upsertBlock.run(lookup, until, message, runId),
    blocked: (lookup, now) => (selectBlock.get(lookup, now) as { until: string; message: string } | undefined) ?? null,
  };
}

/** Read-only figures for `status`: requests per lookup in a period, and blocks (empty before schema 4). */
export function ledgerFigures(db: Db, period: string, now: string): { used: Record<Lookup, number>; blocks: { lookup: Lookup; until: string }[] } {
  const used = perLookup(() => 0);
  if (!tableExists(db, "request_ledger")) return { used, blocks: [] };
  for (const r of db.prepare("SELECT lookup, COUNT(*) AS n FROM request_ledger WHERE period = ? GROUP BY lookup").all(period) as { lookup: Lookup; n: number }[])
    used[r.lookup] = r.n;
  return { used, blocks: db.prepare("SELECT lookup, until FROM quota_blocks WHERE until > ?").all(now) as { lookup: Lookup; until: string }[] };
}

export interface LastRunSettings {
  runId: number;
  startedAt: string;
  simulated: boolean;
  providers: string[];
  /** the run's recorded options (runs.args): what `status` plans the next nights with */
  args: Record<string, unknown>;
}

/** The last run that read an input: its options say how the nightly job is set up. */
export function lastRunSettings(db: Db): LastRunSettings | null {
  const row = db
    .prepare("SELECT id, started_at, simulated, providers, args FROM runs WHERE id = (SELECT MAX(run_id) FROM run_rows)")
    .get() as { id: number; started_at: string; simulated: number; providers: string; args: string } | undefined;
  if (!row) return null;
  try {
    return { runId: row.id, startedAt: row.started_at, simulated: row.simulated === 1, providers: JSON.parse(row.providers) as string[], args: JSON.parse(row.args) as Record<string, unknown> };
  } catch {
    return null;
  }
}
