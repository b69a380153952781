// The bench's table: one row per check, columns aligned.
import type { ScenarioResult } from "./scenario.js";

export function formatTable(results: readonly ScenarioResult[], errors: readonly { scenario: string; message: string }[]): string {
  const rows: string[][] = [["scenario", "measures", "measured", "target", "met"]];
  for (const r of results)
    for (const c of r.checks) rows.push([r.scenario, c.what, c.shown, c.target.text, c.met === null ? "skipped" : c.met ? "yes" : "NO"]);
  for (const e of errors) rows.push([e.scenario, "(did not run)", "error", "", "—"]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...row[i]!].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => cell + " ".repeat(widths[i]! - [...cell].length))
      .join("  ")
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}
