// The summary's `changes` section (figures made by changes.ts): its summary.csv rows and headline.
import type { Tier } from "../../figures/definitions.js";
import type { SummaryRow } from "../words/summary-row.js";
import { perLookup } from "../../contract/lookups.js";

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

const CHANNEL_WORDS: Record<string, string> = { indoorVoice: "indoor voice", indoorData: "indoor data", outdoorVoice: "outdoor voice", outdoorData: "outdoor data" };

/** summary.csv rows of the changes section, in plain English as the other sections. */
export function changesRows(c: ChangesSummary): SummaryRow[] {
  const row = (figure: string, count: number | string): SummaryRow => ({ section: "Changes", figure, count, of: null, ofWhat: "" });
  const rows: SummaryRow[] = [row("Compared with", c.baseline)];
  if (c.broadband) {
    const b = c.broadband;
    rows.push(row("Broadband: addresses up a tier", b.upATier), row("Broadband: addresses down a tier", b.downATier));
    for (const [tier, f] of Object.entries(b.tiers))
      rows.push(row(`Broadband: addresses that moved into ${tier}`, f.gained), row(`Broadband: addresses that moved out of ${tier}`, f.lost));
    rows.push(row("Broadband: addresses added", b.addressesAdded), row("Broadband: addresses removed", b.addressesRemoved));
  }
  if (c.mobile) {
    const m = c.mobile;
    for (const [provider, flows] of Object.entries(m.providers))
      for (const [channel, f] of Object.entries(flows))
        rows.push(
          row(`${provider}: ${CHANNEL_WORDS[channel] ?? channel} notspots closed (now good)`, f.closed),
          row(`${provider}: ${CHANNEL_WORDS[channel] ?? channel} notspots opened (no longer good)`, f.opened),
        );
    for (const [channel, f] of Object.entries(m.total))
      rows.push(
        row(`Mobile: ${CHANNEL_WORDS[channel] ?? channel} total notspots closed`, f.closed),
        row(`Mobile: ${CHANNEL_WORDS[channel] ?? channel} total notspots opened`, f.opened),
      );
    rows.push(row("Mobile: addresses added", m.addressesAdded), row("Mobile: addresses removed", m.addressesRemoved));
  }
  return rows;
}

/** Whether anything moved against the baseline: any count of the section above zero. */
export function anyChange(c: ChangesSummary): boolean {
  const counts = (o: unknown): number[] =>
    typeof o === "number" ? [o] : o !== null && typeof o === "object" ? Object.values(o).flatMap(counts) : [];
  return counts(perLookup((l) => c[l])).some((n) => n > 0);
}

/** One line for the end of a batch; null when nothing changed. */
export function changesHeadline(c: ChangesSummary): string | null {
  if (!anyChange(c)) return null;
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
