// The summary's `changes` section (figures made by changes.ts): its summary.csv rows and headline.
import type { Tier } from "./definitions.js";
import type { SummaryRow } from "./summary.js";

export interface Flow {
  closed: number;
  opened: number;
}

export interface ChangesSummary {
  /** what the latest answers were compared with: "previous version", "since 2026-03-01", "since run 12" */
  baseline: string;
  broadband: {
    upATier: number;
    downATier: number;
    /** per tier, addresses that moved into it and out of it */
    tiers: Record<Tier, { gained: number; lost: number }>;
    addressesAdded: number;
    addressesRemoved: number;
  } | null;
  mobile: {
    /** per provider, notspots (rating below the good one) closed and opened */
    providers: Record<string, { indoorVoice: Flow; indoorData: Flow; outdoorVoice: Flow; outdoorData: Flow }>;
    /** addresses where no provider was good before and one is now (closed), or the reverse (opened) */
    total: { indoorVoice: Flow; indoorData: Flow };
    addressesAdded: number;
    addressesRemoved: number;
  } | null;
}

/** summary.csv rows of the changes section: metrics named by their path, as the other sections. */
export function changesRows(c: ChangesSummary): SummaryRow[] {
  const row = (metric: string, value: number | string, provider = ""): SummaryRow => ({ section: "changes", metric, provider, value, outOf: null });
  const rows: SummaryRow[] = [row("baseline", c.baseline)];
  if (c.broadband) {
    const b = c.broadband;
    rows.push(row("broadband.upATier", b.upATier), row("broadband.downATier", b.downATier));
    for (const [tier, f] of Object.entries(b.tiers)) rows.push(row(`broadband.tiers.${tier}.gained`, f.gained), row(`broadband.tiers.${tier}.lost`, f.lost));
    rows.push(row("broadband.addressesAdded", b.addressesAdded), row("broadband.addressesRemoved", b.addressesRemoved));
  }
  if (c.mobile) {
    const m = c.mobile;
    for (const [provider, flows] of Object.entries(m.providers))
      for (const [channel, f] of Object.entries(flows))
        rows.push(row(`mobile.${channel}Notspots.closed`, f.closed, provider), row(`mobile.${channel}Notspots.opened`, f.opened, provider));
    for (const [channel, f] of Object.entries(m.total))
      rows.push(row(`mobile.${channel}TotalNotspots.closed`, f.closed), row(`mobile.${channel}TotalNotspots.opened`, f.opened));
    rows.push(row("mobile.addressesAdded", m.addressesAdded), row("mobile.addressesRemoved", m.addressesRemoved));
  }
  return rows;
}

/** One line for the end of a batch; null when nothing changed. */
export function changesHeadline(c: ChangesSummary): string | null {
  if (changesRows(c).every((r) => typeof r.value !== "number" || r.value === 0)) return null;
  const parts: string[] = [];
  if (c.broadband) parts.push(`broadband ${c.broadband.upATier} addresses up a tier, ${c.broadband.downATier} down`);
  if (c.mobile) {
    const t = c.mobile.total;
    parts.push(
      `indoor voice total notspots ${t.indoorVoice.closed} closed, ${t.indoorVoice.opened} opened; data ${t.indoorData.closed} closed, ${t.indoorData.opened} opened`,
    );
  }
  return `changes (${c.baseline}): ${parts.join("; ") || "no lookups"}`;
}
