// --uprn-column: when an input row names a property (its UPRN), enriched.csv and the workbook's
// Your rows give that property's own figures beside its postcode's: its speeds and tier, each
// provider's good/not good indoors, and the best provider indoors. The snapshot joins the row to
// the stored address by postcode and UPRN (ReportSnapshot.enrichedRows); this picks the best provider.
import { goodColumns } from "../../figures/measures.js";
import { ReportError, type ReportScope } from "../set/scope.js";

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

/** The selected cells turned into the added columns: the ratings, judged at their answer's good rating (the last cell), become the best provider(s). */
export function propertyCells(selected: readonly unknown[], providers: readonly string[]): unknown[] {
  const fixed = 3 + 2 * providers.length;
  const ratings = selected.slice(fixed, fixed + 2 * providers.length) as (number | null)[];
  const goodRating = selected[fixed + 2 * providers.length];
  return [...selected.slice(0, fixed), typeof goodRating === "number" ? bestProviders(providers, ratings, goodRating) : ""];
}

/**
 * Among the providers good indoors (data or voice at the good rating or above), the one(s) with
 * the highest indoor data rating, ties broken by indoor voice; equals are all named ("ProvA,
 * ProvC"). Empty when no provider is good there: a best of none good is no one to recommend.
 */
export function bestProviders(providers: readonly string[], dataThenVoice: readonly (number | null)[], goodRating: number): string {
  let best: string[] = [];
  let bestKey = -1;
  providers.forEach((p, i) => {
    const data = dataThenVoice[2 * i];
    const voice = dataThenVoice[2 * i + 1];
    if (data === null || data === undefined) return;
    if (data < goodRating && (voice ?? -1) < goodRating) return;
    const key = data * 10 + (voice ?? 0);
    if (key > bestKey) {
      bestKey = key;
      best = [p];
    } else if (key === bestKey) best.push(p);
  });
  return best.join(", ");
}
