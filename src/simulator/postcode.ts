// Postcodes as the simulator sees them: any case, any spacing in; compact upper case out.
import { isValid } from "postcode";

/** `sw1a 2aa` / `SW1A2AA` / ` Sw1A  2aA ` → `SW1A2AA`; null when not a valid UK postcode. */
export function compactPostcode(raw: string): string | null {
  const compact = raw.replace(/\s+/g, "").toUpperCase();
  return compact.length >= 5 && compact.length <= 7 && isValid(compact) ? compact : null;
}

/** `SW1A2AA` → `SW1A 2AA` (the inward code is always the last three characters). */
export function displayPostcode(compact: string): string {
  return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
}
