// Address short descriptions of the form "building name, building number, dependent thoroughfare"
// (FLAT 2, 14, HIGH STREET). Deliberately includes what breaks careless CSV and spreadsheet code:
// commas, double quotes, Welsh letters (ŵ, ŷ) and values starting with = + - @.
import type { Rng } from "./hash.js";

const STREETS = [
  "HIGH STREET", "STATION ROAD", "CHURCH LANE", "MILL LANE", "PARK ROAD", "VICTORIA ROAD", "GREEN LANE",
  "MANOR ROAD", "CHURCH STREET", "THE AVENUE", "KING STREET", "QUEENS ROAD", "NEW ROAD", "SCHOOL LANE",
  "THE CRESCENT", "GROVE ROAD", "ALEXANDRA ROAD", "YORK ROAD", "LONDON ROAD", "BROOKSIDE", "ST. JOHN'S CLOSE",
  "MARKET PLACE", "ORCHARD WAY", "WINDSOR AVENUE",
] as const;
const WELSH_STREETS = ["HEOL Y DŴR", "LÔN TŶ GWYN", "FFORDD Y TŴR", "STRYD FAWR", "HEOL TŶ'N Y COED"] as const;
const HOUSE_NAMES = [
  "ROSE COTTAGE", "THE OLD FORGE", "MILL HOUSE", "THE COACH HOUSE", "IVY COTTAGE", "THE BARN", "WILLOW LODGE",
  "THE OLD SCHOOL HOUSE", "ORCHARD VIEW",
] as const;
// Mixed case as some real records are, to carry the lower-case Welsh letters.
const WELSH_HOUSE_NAMES = ["Tŷ Gwyn", "Tŷ'n y Coed", "Hen Dŵr", "Bryn Tŵr", "Tŷ Coch"] as const;
const QUOTED_NAMES = ['THE "OLD" BAKERY', '"THE LINDENS"', 'MAPLE HOUSE "A"', '"BRYN TŴR"'] as const;
const BLOCK_NAMES = ["RIVERSIDE COURT", "VICTORIA HOUSE", "THE MALTINGS", "KESTREL HOUSE", "ALBION WORKS"] as const;
// Starts a spreadsheet would read as a formula.
const FORMULA_STARTS = ["=1+2", "+44 HOUSE", "-1, REAR OF", "@HOME", "=HYPERLINK(\"x\")", "-THE ANNEXE-"] as const;

/** How one postcode's addresses are laid out: shared by all its addresses. */
export interface Street {
  street: string;
  welsh: boolean;
  block: string;
  /** 2 when only one side of the street is in the postcode */
  step: number;
}

export function pickStreet(rng: Rng): Street {
  const welsh = rng.chance(0.08);
  return { street: welsh ? rng.pick(WELSH_STREETS) : rng.pick(STREETS), welsh, block: rng.pick(BLOCK_NAMES), step: rng.chance(0.6) ? 2 : 1 };
}

/** The i-th address of a postcode (0-based). `flats` makes a block of flats (large postcodes). */
export function describeAddress(rng: Rng, street: Street, i: number, flats: boolean): string {
  const number = flats ? 1 + Math.floor(i / 40) : 1 + i * street.step;
  if (rng.chance(0.01)) return `${rng.pick(FORMULA_STARTS)}, ${number}, ${street.street}`;
  if (flats) return `FLAT ${(i % 40) + 1}, ${street.block}, ${number}, ${street.street}`;
  const r = rng.next();
  if (r < 0.03) return `${rng.pick(QUOTED_NAMES)}, ${number}, ${street.street}`;
  if (r < 0.13) return `FLAT ${rng.int(1, 6)}, ${number}, ${street.street}`;
  if (r < 0.23) {
    const name = street.welsh && rng.chance(0.6) ? rng.pick(WELSH_HOUSE_NAMES) : rng.pick(HOUSE_NAMES);
    return rng.chance(0.5) ? `${name}, ${street.street}` : `${name}, ${number}, ${street.street}`;
  }
  return `${number}, ${street.street}`;
}
