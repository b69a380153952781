// Postcode validation and normalisation, via the `postcode` package.
import { isValid, toNormalised } from "postcode";

export type NormalisedPostcode = { ok: true; compact: string; display: string } | { ok: false; reason: string };

/**
 * Characters that print as nothing: text copied from web pages and documents carries them into
 * spreadsheets (zero-width space and joiners, word joiner, soft hyphen). `\s` already covers
 * tabs, no-break spaces and the BOM.
 */
const INVISIBLE = /[\u200B-\u200D\u2060\u00AD]/g;

/** Any case, any spacing (including tabs) → `SW1A 2AA` for display and `SW1A2AA` for the API. */
export function normalisePostcode(raw: string): NormalisedPostcode {
  const trimmed = raw.replace(INVISIBLE, "").trim();
  if (trimmed.length === 0) return { ok: false, reason: "empty postcode" };
  const squeezed = trimmed.replace(/\s+/g, " ");
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
  return { ok: true, display, compact: display.replace(/ /g, "") };
}
