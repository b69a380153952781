// The releases part of `npm run status`: per lookup, each release with its answers and versions.
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { SCALES, type MobileScale } from "../contract/mobile-scales.js";
import type { LookupReleases } from "../store/types.js";

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
