// What `npm run status` shows: recent runs and the stored answers by lookup and status.
import type { Db } from "./db.js";

export interface RunSummary {
  id: number;
  started_at: string;
  ended_at: string | null;
  state: string;
  exit_code: number | null;
  simulated: number;
  input_name: string;
  input_rows: number;
  postcodes: number;
  rejects: number;
  ok: number;
  not_found: number;
  failed: number;
  pending: number;
  requests: number;
  retries: number;
  throttled: number;
  message: string | null;
}

export interface DatabaseStatus {
  runs: RunSummary[];
  lookups: { lookup: string; status: string; postcodes: number; oldest: string; newest: string }[];
  addresses: { broadband: number; mobile: number };
  datasets: { dataset: string; postcodes: number }[];
  lock: { pid: number; host: string; run_id: number | null; started_at: string } | null;
}

export function databaseStatus(db: Db, recentRuns: number): DatabaseStatus {
  return {
    runs: db
      .prepare(
        `SELECT id, started_at, ended_at, state, exit_code, simulated, input_name, input_rows, postcodes, rejects,
                ok, not_found, failed, pending, requests, retries, throttled, message
           FROM runs ORDER BY id DESC LIMIT ?`,
      )
      .all(recentRuns) as RunSummary[],
    lookups: db
      .prepare(
        `SELECT lookup, status, COUNT(*) AS postcodes, MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
           FROM lookups GROUP BY lookup, status ORDER BY lookup, status`,
      )
      .all() as DatabaseStatus["lookups"],
    addresses: {
      broadband: (db.prepare("SELECT COUNT(*) AS n FROM broadband_addresses").get() as { n: number }).n,
      mobile: (db.prepare("SELECT COUNT(*) AS n FROM mobile_addresses").get() as { n: number }).n,
    },
    datasets: db
      .prepare(
        "SELECT dataset, COUNT(*) AS postcodes FROM lookups WHERE dataset IS NOT NULL GROUP BY dataset ORDER BY dataset",
      )
      .all() as DatabaseStatus["datasets"],
    lock: (db.prepare("SELECT pid, host, run_id, started_at FROM batch_lock WHERE id = 1").get() as DatabaseStatus["lock"]) ?? null,
  };
}

export function formatStatus(s: DatabaseStatus, path: string): string {
  const lines: string[] = [`database ${path}`, ""];
  lines.push("recent runs:");
  if (s.runs.length === 0) lines.push("  none");
  for (const r of s.runs)
    lines.push(
      `  #${r.id} ${r.started_at} ${r.state}${r.exit_code === null ? "" : ` (exit ${r.exit_code})`}${r.simulated ? " simulated" : ""} ` +
        `${r.input_name}: ${r.postcodes} postcodes, ${r.rejects} rejects; ok ${r.ok}, not found ${r.not_found}, ` +
        `failed ${r.failed}, pending ${r.pending}; ${r.requests} requests, ${r.retries} retries, ${r.throttled} 429s` +
        (r.message ? ` - ${r.message}` : ""),
    );
  lines.push("", "stored answers:");
  if (s.lookups.length === 0) lines.push("  none");
  for (const l of s.lookups)
    lines.push(`  ${l.lookup} ${l.status}: ${l.postcodes} postcodes (fetched ${l.oldest} .. ${l.newest})`);
  lines.push(`  addresses: broadband ${s.addresses.broadband}, mobile ${s.addresses.mobile}`);
  for (const d of s.datasets) lines.push(`  dataset ${d.dataset}: ${d.postcodes} postcodes`);
  if (s.lock) lines.push("", `locked by pid ${s.lock.pid} on ${s.lock.host} (run ${s.lock.run_id ?? "?"}) since ${s.lock.started_at}`);
  return lines.join("\n") + "\n";
}
