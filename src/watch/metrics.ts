// The night's figures for Prometheus, in node_exporter's textfile form (the text exposition format
// 0.0.4: # HELP, # TYPE, then samples): point --metrics-file at a file ending .prom in the
// collector's folder. Written whole to a temporary name beside it and renamed over it, so the
// collector never reads half a file.
import { renameSync, rmSync, writeFileSync } from "node:fs";

export interface NightFigures {
  endedAtMs: number;
  durationMs: number;
  exitCode: number;
  /** why the run stopped early (README's table), or null when it did not */
  stopReason: string | null;
  /** requests sent this run, per lookup */
  requests: Record<string, number>;
  /** requests of the --monthly-quota period used and left, per lookup (empty without --monthly-quota) */
  quota: readonly { lookup: string; used: number; remaining: number }[];
  /** postcode × lookup pairs still without a final answer */
  pending: number | null;
  /** answers past their retention, once the store counts them (0 until then) */
  expired: number | null;
}

const PREFIX = "postcode_coverage";

/** A label value as the format escapes it: backslash, double quote and line feed. */
function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function metric(name: string, help: string, samples: readonly [Record<string, string>, number][]): string[] {
  const full = `${PREFIX}_${name}`;
  const lines = [`# HELP ${full} ${help}`, `# TYPE ${full} gauge`];
  for (const [labels, value] of samples) {
    const keys = Object.entries(labels);
    const set = keys.length === 0 ? "" : `{${keys.map(([k, v]) => `${k}="${label(v)}"`).join(",")}}`;
    lines.push(`${full}${set} ${Number.isFinite(value) ? String(value) : "NaN"}`);
  }
  return lines;
}

/** The file's text: one gauge family per figure, every sample of a family together. */
export function metricsText(f: NightFigures): string {
  const perLookup = (pick: (q: NightFigures["quota"][number]) => number) => f.quota.map((q) => [{ lookup: q.lookup }, pick(q)] as [Record<string, string>, number]);
  const families = [
    metric("last_run_end_timestamp_seconds", "When the last batch ended, in Unix time.", [[{}, Math.round(f.endedAtMs / 1000)]]),
    metric("last_run_duration_seconds", "How long the last batch ran.", [[{}, Math.round(f.durationMs) / 1000]]),
    metric("last_run_exit_code", "The last batch's exit code (0 all final, 1 error, 2 some failed, 3 stopped early, 129-143 a signal).", [[{}, f.exitCode]]),
    metric("last_run_stop_reason", "Why the last batch stopped early (1 for its reason; none when it did not).", [[{ reason: f.stopReason ?? "none" }, 1]]),
    metric(
      "last_run_requests",
      "Requests the last batch sent, per lookup.",
      Object.entries(f.requests).map(([lookup, n]) => [{ lookup }, n]),
    ),
    metric("quota_used_requests", "Requests used in the current --monthly-quota period, per lookup.", perLookup((q) => q.used)),
    metric("quota_remaining_requests", "Requests left in the current --monthly-quota period, per lookup.", perLookup((q) => q.remaining)),
    metric("postcodes_pending", "Postcode lookups still without a final answer after the last batch.", [[{}, f.pending ?? 0]]),
    metric("postcodes_expired", "Stored answers past their retention (0 where the store does not count them).", [[{}, f.expired ?? 0]]),
  ];
  // a family with no sample (no quota) keeps its HELP and TYPE: the format allows it, and the name stays known
  return families.flat().join("\n") + "\n";
}

/** Writes `text` to `path` atomically: a temporary file in the same folder, then a rename over it. */
export function writeMetricsFile(path: string, text: string): void {
  // not ending in .prom: the collector must not read the temporary file
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o644 });
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}
