// What report.html shows: the data renderHtmlReport takes. The broadband, mobile and run sections
// come from this branch's store (data.ts); `groups` and `changes` are optional inputs that other
// parts of the report set compute (the groups of groups.csv, the changes of changes.csv). Their
// shapes here are the minimum the charts need, so that a caller maps its own rows onto them:
//
//   groups:  one GroupRow per dimension and group, as groups.csv has them. A figure is a count and
//            what it is a share of (addresses with data in that lookup); the share shown is
//            percent(count, of) to one decimal, as summary.csv computes it. null: the group has no
//            addresses in that lookup (it is left out of that chart).
//   changes: what moved since the baseline (the previous release, or --since): addresses up and
//            down a tier, and per provider the indoor voice notspots closed (rating crossed up to
//            good) and opened (crossed down).
import type { Tier } from "../../figures/definitions.js";
import type { Summary } from "../summary/summary.js";
import type { RunFacts } from "../../store/types.js";
import type { MapLayout } from "./map/layout.js";

export type { RunFacts } from "../../store/types.js";

/** Addresses of one exclusive broadband tier: every address is in exactly one. */
export interface TierCount {
  tier: Tier;
  addresses: number;
}

/** One bin of the MaxPredictedDown histogram: from <= speed < to (to null: no upper end). */
export interface SpeedBin {
  from: number;
  to: number | null;
  /** the tier every speed in the bin reaches on download alone (Decent also needs 1 Mbit/s up) */
  tier: Tier;
  addresses: number;
}

export interface GroupFigure {
  count: number;
  of: number;
}

export interface GroupRow {
  /** the input column or derived dimension, e.g. `region`, `district` */
  dimension: string;
  group: string;
  /** addresses below superfast, of addresses with broadband data */
  belowSuperfast: GroupFigure | null;
  /** addresses where no provider has good indoor voice, of addresses with mobile data */
  indoorVoiceTotalNotspots: GroupFigure | null;
}

export interface ChangesData {
  /** what the figures compare, in words: e.g. `release 2024-06 against 2024-03` */
  baseline: string;
  tierUp: number;
  tierDown: number;
  /** per provider, indoor voice notspots closed and opened */
  notspots: { provider: string; closed: number; opened: number }[];
}

/** The map section: the postcodes with coordinates (--area-file) in hexagons, and how many have none. */
export interface MapData {
  located: number;
  missing: number;
  /** null when no postcode has coordinates */
  layout: MapLayout | null;
}

export interface HtmlReportData {
  summary: Summary;
  /** exclusive tiers, best first (TIERS order); empty without the broadband lookup */
  tiers: TierCount[];
  /** addresses with data only, slowest bin first */
  speedBins: SpeedBin[];
  /** the run reported (for --all: the latest run) */
  run: RunFacts | null;
  groups?: GroupRow[] | undefined;
  changes?: ChangesData | undefined;
  /** absent: no map section (sample data in tests) */
  map?: MapData | undefined;
}
