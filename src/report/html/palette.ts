// Colours of report.html. Every fill comes from viridis (a palette whose lightness rises steadily,
// so it stays readable in greyscale and to colour-blind readers), every bar has a dark outline so
// the lightest fills stand out on white paper, and every bar carries a text label: colour is
// never the only way to tell two things apart.
import type { Tier } from "../../figures/definitions.js";

/** Dark to light. */
export const PALETTE = ["#414487", "#2a788e", "#22a884", "#7ad151", "#fde725"] as const;

export const TIER_COLOURS: Record<Tier, string> = {
  Gigabit: PALETTE[0],
  Ultrafast: PALETTE[1],
  Superfast: PALETTE[2],
  Decent: PALETTE[3],
  "Below decent": PALETTE[4],
  // no data is no colour: an outlined white bar
  "No data": "#ffffff",
};

export const INK = "#1a1a1a";
export const OUTLINE = "#333333";
export const GRID_LINE = "#d0d0d0";
