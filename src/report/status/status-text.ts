// `npm run status` as text: the database status (the store's `status.database`) in words, for a terminal.
import type { DatabaseStatus } from "../../store/types.js";

/** The same words on both engines, whose migration counts differ. */
export function schemaText(s: Pick<DatabaseStatus, "schemaVersion" | "schemaLatest">): string {
  if (s.schemaVersion === s.schemaLatest) return "schema up to date";
  if (s.schemaVersion > s.schemaLatest) return `schema newer than this program's: ${s.schemaVersion - s.schemaLatest} change(s) it does not know`;
  return `schema ${s.schemaLatest - s.schemaVersion} change(s) behind this program's: the next batch upgrades it`;
}

/** Which version of this program last wrote the database; none recorded: one before 0.2.0, which began recording it. */
export function writtenByText(version: string | null): string {
  return `last written by ${version === null ? "a postcode-coverage version before 0.2.0" : `postcode-coverage ${version}`}`;
}

export function formatStatus(s: DatabaseStatus, path: string): string {
  const lines: string[] = [`database ${path} (${schemaText(s)})`, writtenByText(s.writtenBy)];
  if (s.leases.length > 1) {
    // team mode (PostgreSQL): one lease per batch process, on any machine
    lines.push(`${s.leases.length} batches running (live leases):`);
    for (const l of s.leases) lines.push(`  pid ${l.holder.pid} on ${l.holder.host}, run ${l.runId ?? "?"}, since ${l.takenAt}, lease until ${l.expiresAt}`);
  } else if (s.lock) {
    const who = `pid ${s.lock.pid} on ${s.lock.host}, run ${s.lock.run_id ?? "?"}, since ${s.lock.started_at}`;
    lines.push(
      s.lock.alive === false
        ? `lock: left by a killed batch (${who}); the next batch takes it over`
        : `lock: a batch is running (${who})`,
    );
  }

  lines.push("", s.runs.length === 0 ? "no runs yet" : `last ${s.runs.length} run(s), newest first:`);
  for (const r of s.runs) {
    const outcome = r.exit_code === null ? r.state : `${r.state}, exit ${r.exit_code}`;
    lines.push(
      `  #${r.id}  ${r.started_at} .. ${r.ended_at ?? "(running)"}  ${outcome}${r.simulated ? "  [simulated]" : ""}`,
      `       input ${r.input_name}: ${r.input_rows} rows, ${r.postcodes} postcodes, ${r.rejects} rejected`,
      `       lookups: ok ${r.ok}, not found ${r.not_found}, failed ${r.failed}, pending ${r.pending}`,
      `       requests ${r.requests} (${r.retries} retries, ${r.throttled} 429s)`,
    );
    if (r.message) lines.push(`       ${r.message}`);
  }

  lines.push("", `stored answers: ${s.postcodes} postcodes`);
  for (const l of s.lookups) lines.push(`  ${l.lookup} ${l.status}: ${l.postcodes} (fetched ${l.oldest} .. ${l.newest})`);
  lines.push(`  addresses: broadband ${s.addresses.broadband}, mobile ${s.addresses.mobile}`);
  for (const d of s.datasets) lines.push(`  dataset ${d.dataset}: ${d.postcodes} postcodes`);
  if (s.failures.length > 0) {
    lines.push("", "commonest failures (a re-run retries them):");
    for (const f of s.failures) lines.push(`  ${f.lookup} x${f.postcodes}: ${f.last_error}`);
  }
  return lines.join("\n") + "\n";
}
