// One simulated address with all its values (a leaf: data.ts builds them, releases.ts changes them).
import type { SpeedField } from "../contract/fields.js";

export interface SimAddress {
  UPRN: number;
  AddressShortDescription: string;
  /** every field of SPEED_FIELDS; -1 = no prediction */
  speeds: Record<SpeedField, number>;
  /** one rating 0..4 per field of mobileFields(providers), in that order */
  ratings: number[];
}
