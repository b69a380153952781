// A postcode's or row's status in words, for the workbook's sheets (the CSVs keep the codes, which
// scripts read): the column is as wide as the longest words, so that no status is cut.
import { UPRN_NOT_FOUND } from "../../figures/postcode-columns.js";

export const STATUS_WORDS: Readonly<Record<string, string>> = {
  ok: "found",
  not_found: "postcode not found",
  failed: "lookup failed",
  pending: "pending (no answer yet)",
  expired: "expired, awaiting refresh",
  not_requested: "not requested",
  invalid: "no valid postcode",
  [UPRN_NOT_FOUND]: "UPRN not in the answer",
};

/** The words for a status code; an unknown code is shown as it is, never cut. */
export function statusWords(code: unknown): unknown {
  return typeof code === "string" ? (STATUS_WORDS[code] ?? code) : code;
}

/** Characters the widest status words need. */
export const STATUS_WIDTH = Math.max(...Object.values(STATUS_WORDS).map((w) => w.length)) + 1;
