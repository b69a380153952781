// The releases part of `npm run status`: per lookup, each release with its answers and versions.
import type { LookupReleases } from "../store/types.js";

export function formatReleaseStatus(list: readonly LookupReleases[]): string {
  if (list.length === 0) return "";
  const lines = ["", "releases (oldest first; answers: confirmed on it now, versions: first seen in it):"];
  for (const l of list) {
    for (const r of l.releases)
      lines.push(`  ${l.lookup} ${r.name}: ${r.answers} answers, ${r.versions} versions (first seen ${r.detected_at})${r.name === l.newest ? "  [newest]" : ""}`);
    if (l.input) {
      const share = l.input.postcodes === 0 ? "-" : `${((100 * l.input.onNewest) / l.input.postcodes).toFixed(1)}%`;
      lines.push(`  ${l.lookup}: ${l.input.onNewest} of run ${l.input.runId}'s ${l.input.postcodes} postcodes on the newest release (${share})`);
    }
  }
  return lines.join("\n") + "\n";
}
