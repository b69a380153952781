// --uprn-column: when an input row names a property (its UPRN), enriched.csv and the workbook's
// Your rows give that property's own figures beside its postcode's: its speeds and tier, each
// provider's good/not good indoors, and the best provider indoors. SQL joins the row to the stored
// address by postcode and UPRN; JavaScript only picks the best provider.
import { mobileField } from "../spec/fields.js";
import { goodColumns, goodSql, tierSql } from "./measures.js";
import { ReportError, type ReportScope } from "./scope.js";

/** The Status of a row whose postcode was found but whose UPRN is in no answer for it. */
export const UPRN_NOT_FOUND = "uprn_not_found";

export interface PropertyColumns {
  /** the UPRN column's index in the input row */
  index: number;
  /** the columns added to enriched.csv */
  header: string[];
}

/** The added columns: Property + the speeds, tier, per-provider good indoors, best provider indoors. */
export function propertyColumns(scope: ReportScope, uprnColumn: string): PropertyColumns {
  const index = scope.inputColumns.findIndex((c) => c.toLowerCase() === uprnColumn.trim().toLowerCase());
  if (index < 0)
    throw new ReportError(
      `--uprn-column ${JSON.stringify(uprnColumn)}: the input has no such column; its columns are ${scope.inputColumns.map((c) => JSON.stringify(c)).join(", ")}`,
    );
  return {
    index,
    header: [
      "PropertyMaxPredictedDown",
      "PropertyMaxPredictedUp",
      "PropertyTier",
      ...goodColumns(scope.providers).map((g) => `Property${g.column}`),
      "PropertyBestProviderIndoors",
    ],
  };
}

/** The UPRN of the row as an integer: digits only (spaces around allowed), else NULL. */
function uprnSql(cells: string, index: number): string {
  const cell = `trim(json_extract(${cells}, '$[${index}]'))`;
  return `(CASE WHEN ${cell} GLOB '[0-9]*' AND ${cell} NOT GLOB '*[^0-9]*' AND length(${cell}) <= 15 THEN CAST(${cell} AS INTEGER) END)`;
}

/** The joins that find the row's property (aliases pb, pm), for a query over run_rows r. */
export function propertyJoinSql(scope: ReportScope, index: number): string {
  const uprn = uprnSql("r.cells", index);
  return [
    scope.lookups.includes("broadband") ? `LEFT JOIN broadband_addresses pb ON pb.postcode = r.postcode AND pb.uprn = ${uprn}` : "",
    scope.lookups.includes("mobile") ? `LEFT JOIN mobile_addresses pm ON pm.postcode = r.postcode AND pm.uprn = ${uprn}` : "",
  ].join(" ");
}

/** Whether the row names a UPRN (non-blank) and whether any answer holds it: decides uprn_not_found. */
export function propertyFoundSql(scope: ReportScope, index: number): { named: string; found: string } {
  const found = [scope.lookups.includes("broadband") ? "pb.uprn IS NOT NULL" : "", scope.lookups.includes("mobile") ? "pm.uprn IS NOT NULL" : ""].filter(Boolean);
  return {
    named: `trim(COALESCE(json_extract(r.cells, '$[${index}]'), '')) <> ''`,
    found: found.length > 0 ? `(${found.join(" OR ")})` : "0",
  };
}

/**
 * The selected cells (after the row's own): down, up, tier, the good yes/no cells, then each
 * provider's indoor data and voice ratings for propertyCells to pick the best from.
 */
export function propertySelectSql(scope: ReportScope): string {
  const bb = scope.lookups.includes("broadband");
  const mb = scope.lookups.includes("mobile");
  const ratings = scope.providers.flatMap((p) => [mobileField(p, "Data", "Indoor"), mobileField(p, "Voice", "Indoor")]);
  return [
    bb ? "pb.MaxPredictedDown" : "NULL",
    bb ? "pb.MaxPredictedUp" : "NULL",
    bb ? `CASE WHEN pb.uprn IS NULL THEN NULL ELSE ${tierSql("pb")} END` : "NULL",
    ...goodColumns(scope.providers).map((g) => (mb ? `CASE WHEN pm.uprn IS NULL THEN NULL ELSE ${goodSql(`pm.${g.rating}`)} END` : "NULL")),
    ...ratings.map((r) => (mb ? `pm.${r}` : "NULL")),
  ].join(", ");
}

/** The selected cells turned into the added columns: the ratings become the best provider(s). */
export function propertyCells(selected: readonly unknown[], providers: readonly string[]): unknown[] {
  const fixed = 3 + 2 * providers.length;
  const ratings = selected.slice(fixed) as (number | null)[];
  return [...selected.slice(0, fixed), bestProviders(providers, ratings)];
}

/**
 * The provider(s) with the highest indoor data rating, ties broken by indoor voice; equals are
 * all named ("ProvA, ProvC"). Empty when no rating is known.
 */
export function bestProviders(providers: readonly string[], dataThenVoice: readonly (number | null)[]): string {
  let best: string[] = [];
  let bestKey = -1;
  providers.forEach((p, i) => {
    const data = dataThenVoice[2 * i];
    const voice = dataThenVoice[2 * i + 1];
    if (data === null || data === undefined) return;
    const key = data * 10 + (voice ?? 0);
    if (key > bestKey) {
      bestKey = key;
      best = [p];
    } else if (key === bestKey) best.push(p);
  });
  return best.join(", ");
}
