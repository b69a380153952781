// `npm run status` as text, for a terminal, in the order the command prints it: the database (the
// store's `status.database`), a running batch's progress, the releases (per lookup, each release with
// its answers and versions), the quota plan, Ofcom's open data.
import type { DatabaseStatus, LookupReleases } from "../store/types.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { SCALES, type MobileScale } from "../contract/mobile-scales.js";
import { formatEta } from "../log/progress.js";
import { exhaustedWords } from "../plan/quota-exhausted.js";
import type { LookupQuotaStatus } from "../plan/quota-status.js";
import type { OpenDataStatus } from "../plan/open-data-status.js";
import type { RunningView } from "./running-progress.js";

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

export function formatRunningProgress(view: RunningView | null): string {
  if (!view) return "";
  const pct = view.toFetch > 0 ? Math.floor((view.fetched / view.toFetch) * 100) : 100;
  return `\nRun ${view.runId} is running: ${view.fetched} of ${view.toFetch} lookups fetched (${pct}%), ${view.requests} requests, ETA ${formatEta(view.etaSeconds)}\n`;
}

type Release = LookupReleases["releases"][number];

/** A mobile release's stored scale and why, in one line. */
export function releaseScaleLine(r: Release): string {
  const spec = SCALES[r.scale as MobileScale];
  if (!spec) return `    scale: not recorded yet (the next batch records it)`;
  const n = (v: number | null) => (v ?? 0).toLocaleString("en-GB");
  const why = r.scale_legacy_ratings ? `${n(r.scale_legacy_ratings)} ratings of 1 or 2 among ${n(r.scale_ratings)} ratings` : `no rating 1 or 2 among ${n(r.scale_ratings)} ratings`;
  return `    scale: ${spec.name}, ${spec.title} (${why})`;
}

export function formatReleaseStatus(list: readonly LookupReleases[]): string {
  if (list.length === 0) return "";
  const lines = ["", "releases (oldest first; answers: confirmed on it now, versions: first seen in it):"];
  for (const l of list) {
    for (const r of l.releases) {
      lines.push(`  ${l.lookup} ${r.name}: ${r.answers} answers, ${r.versions} versions (first seen ${r.detected_at})${r.name === l.newest ? "  [newest]" : ""}`);
      if (LOOKUP_SPECS[l.lookup].ratingScale) lines.push(releaseScaleLine(r));
    }
    if (l.input) {
      const share = l.input.postcodes === 0 ? "-" : `${((100 * l.input.onNewest) / l.input.postcodes).toFixed(1)}%`;
      lines.push(`  ${l.lookup}: ${l.input.onNewest} of run ${l.input.runId}'s ${l.input.postcodes} postcodes on the newest release (${share})`);
    }
  }
  return lines.join("\n") + "\n";
}

export function formatQuotaStatus(list: readonly LookupQuotaStatus[]): string {
  if (list.length === 0) return "";
  const lines = ["", "quota plan (--monthly-quota of the last run):"];
  for (const q of list) {
    const used = `  ${q.lookup}: ${q.used} of ${q.quota} used this period (${q.period} to ${q.periodLastDay}), ${q.remaining} remaining`;
    if (q.exhausted) lines.push(used, `  ${exhaustedWords(q.lookup, q.exhausted)}`);
    else lines.push(`${used}; night of ${q.nextNight}: ${q.newData} new first, refresh allowance ${q.refreshAllowance}, ${q.deferred} of ${q.outstanding} refreshes deferred`);
    if (q.capacity) lines.push(...q.capacity.sentences.map((c) => `  ${q.lookup}: ${c}`));
    else if (q.finishDate) lines.push(`  ${q.lookup}: the input is on the newest release and within --max-age by ${q.finishDate} at this pace`);
    else if (!q.exhausted)
      lines.push(`  ${q.lookup}: at this pace the input cannot be kept on the newest release within --max-age; it would need --monthly-quota ${q.quotaNeeded}`);
    if (q.expiry) lines.push(`  ${q.expiry}`);
  }
  return lines.join("\n") + "\n";
}

export function formatOpenDataStatus(s: OpenDataStatus | null): string {
  if (!s) return "";
  const r = s.release;
  const lines = [
    "",
    `open data: Ofcom's postcode files of ${r.month} (r${r.revision}), ${r.postcodes} postcodes (all premises), ${r.residential} residential; imported ${r.importedAt} from ${r.source}`,
  ];
  if (s.newPostcodes) {
    const c = s.newPostcodes;
    lines.push(
      `  broadband: ${c.multiBand + c.singleBand + c.notListed} postcodes of the last input still without a first answer: ` +
        `${c.multiBand} in more than one speed band (first), ${c.singleBand} wholly in one, ${c.notListed} not listed`,
    );
  }
  return lines.join("\n") + "\n";
}
