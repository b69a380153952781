// UK postcodes, the one place that reads and writes them: validation via the `postcode` package,
// the compact form the API and the database use (SW1A2AA) and the display form people write
// (SW1A 2AA). Every valid postcode ends in a 3-character inward code, so the space goes before
// the last three.
import { isValid, toNormalised } from "postcode";

export type NormalisedPostcode = { ok: true; compact: string; display: string } | { ok: false; reason: string };

/**
 * Characters that print as nothing: text copied from web pages and documents carries them into
 * spreadsheets (zero-width space and joiners, word joiner, soft hyphen). `\s` already covers
 * tabs, no-break spaces and the BOM.
 */
const INVISIBLE = /[\u200B-\u200D\u2060\u00AD]/g;

/**
 * Real postcodes outside the pattern the package checks: GIR 0AA (Girobank, Bootle), which the ONS
 * directory and Royal Mail list. Compact form.
 */
const OUTSIDE_THE_PATTERN: ReadonlySet<string> = new Set(["GIR0AA"]);

/** Any case, any spacing (including tabs) → `SW1A 2AA` for display and `SW1A2AA` for the API. */
export function normalisePostcode(raw: string): NormalisedPostcode {
  const trimmed = raw.replace(INVISIBLE, "").trim();
  if (trimmed.length === 0) return { ok: false, reason: "empty postcode" };
  const squeezed = trimmed.replace(/\s+/g, " ");
  const special = squeezePostcode(squeezed);
  if (OUTSIDE_THE_PATTERN.has(special)) return { ok: true, compact: special, display: displayPostcode(special) };
  if (!isValid(squeezed)) {
    // The package wants at most one space between outward and inward codes.
    const compact = squeezed.replace(/ /g, "");
    if (!isValid(compact)) return { ok: false, reason: "not a valid UK postcode" };
    return fromValid(compact);
  }
  return fromValid(squeezed);
}

function fromValid(value: string): NormalisedPostcode {
  const display = toNormalised(value);
  if (display === null) return { ok: false, reason: "not a valid UK postcode" };
  return { ok: true, display, compact: squeezePostcode(display) };
}

/** Text as the API compares postcodes, valid or not: spaces out, upper case (` sw1a 2aa` → `SW1A2AA`). */
export function squeezePostcode(text: string): string {
  return text.replace(/\s+/g, "").toUpperCase();
}

/** `sw1a 2aa` / `SW1A2AA` / ` Sw1A  2aA ` → `SW1A2AA`; null when not a valid UK postcode. For the simulator's hot path: no display form. */
export function compactPostcode(raw: string): string | null {
  const compact = squeezePostcode(raw);
  return compact.length >= 5 && compact.length <= 7 && (isValid(compact) || OUTSIDE_THE_PATTERN.has(compact)) ? compact : null;
}

/** `SW1A2AA` → `SW1A 2AA`. */
export function displayPostcode(compact: string): string {
  return compact.length > 3 ? `${compact.slice(0, -3)} ${compact.slice(-3)}` : compact;
}

/** displayPostcode in SQL over a column of compact postcodes, so the report's tables sort in display order. */
export function displayPostcodeSql(column: string): string {
  return `(CASE WHEN length(${column}) > 3 THEN substr(${column}, 1, length(${column}) - 3) || ' ' || substr(${column}, -3) ELSE ${column} END)`;
}
