// The entries several commands take, declared once: each command's table names them, so --db, --run,
// --group-by, ... mean the same in every command that has them.
import { DEFAULT_PROVIDERS, parseProviders, RATING_MAX, RATING_MIN } from "../../contract/fields.js";
import { goodCoverageWords, MOBILE_SCALE_CHOICES, ratingName, SCALES, type MobileScale, type MobileScaleChoice } from "../../contract/mobile-scales.js";
import { ConfigError } from "./config-values.js";
import { parseGroupBy } from "../../report/groups/group-by.js";
import { DEFAULT_WORKBOOK_ROWS, SHEET_MAX_ROWS } from "../../report/xlsx/sheet-limits.js";
import { parseAttribution } from "../../report/summary/attribution.js";
import { isPostgresUrl, passwordInArgv } from "../../store/location.js";
import { oneOf, option, text, wholeNumber, wrapped } from "./engine.js";

/** Where the batch keeps its database; the report, status and export commands read it there too. */
/** "good coverage: Likely (4)": a scale's own threshold, in the words the reports use. */
const scaleGood = (scale: MobileScale) => goodCoverageWords([{ scale, goodRating: SCALES[scale].goodRating }]);
/** "Likely (4)": the rating a scale calls good by default. */
const defaultGood = (scale: MobileScale) => ratingName(scale, SCALES[scale].goodRating);

export const DEFAULT_DB = "output/coverage.sqlite";

/** A SQLite path, or a PostgreSQL URL without a password (argv is visible to every user). */
function parseDb(raw: string | undefined, name: string): string {
  // SQLite would take either as a database that is gone when the command ends: a night's answers and its quota ledger lost
  if (raw!.trim() === "") throw new ConfigError(`${name} is empty (an unset variable?): give the SQLite database file, or a postgres:// URL`);
  if (raw === ":memory:") throw new ConfigError(`${name} :memory: keeps nothing once the command ends: give the SQLite database file, or a postgres:// URL`);
  const refused = isPostgresUrl(raw!) ? passwordInArgv(raw!, name) : null;
  if (refused) throw new ConfigError(refused);
  return raw!;
}

export const SHARED_OPTIONS = {
  /** batch, report, export, status */
  db: option({ type: "string", default: DEFAULT_DB, help: "SQLite database file, or a postgres:// URL (its password in PGPASSWORD or ~/.pgpass); an empty value or :memory:, which would keep nothing, is refused", parse: parseDb }),
  /** batch, report */
  out: option({ type: "string", default: "output", help: "directory for the reports", parse: (raw) => raw! }),
  /** batch, simulate */
  providers: option({
    type: "string",
    default: DEFAULT_PROVIDERS.join(","),
    help: "mobile provider prefixes (production uses its own codes)",
    parse: (raw, name): string[] => wrapped(name, () => parseProviders(raw!)),
  }),
  /** batch, report */
  attribution: option({
    type: "string",
    help: "the attribution printed beside the API's data in report.html, the workbook's Summary and summary.csv, in the exact words your licence asks for (default: \"Source: Ofcom\" with the dataset releases; docs/retention.md)",
    parse: (raw, name) => {
      try {
        return parseAttribution(raw, name);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    },
  }),
  /** batch, report */
  groupBy: option({
    type: "string",
    help: "figures per group in groups.csv: input or --area-file columns, area, district, sector (default area,district; none for no groups)",
    parse: (raw): string[] | undefined => (raw === undefined ? undefined : parseGroupBy(raw)),
  }),
  /** batch, report */
  mobileScale: option({
    type: "string",
    default: "auto",
    help: `the mobile rating scale the reports read: auto (a release with any rating 1 or 2 is legacy, otherwise current; each answer is judged on its own release's scale), current (Ofcom's 0/3/4: ${SCALES.current.values.map((v) => ratingName("current", v.rating)).join(", ")}; ${scaleGood("current")}) or legacy (0-4: ${ratingName("legacy", 0)} ... ${ratingName("legacy", 4)}; ${scaleGood("legacy")}) for every answer`,
    parse: oneOf<MobileScaleChoice>(...MOBILE_SCALE_CHOICES),
  }),
  /** batch, report */
  goodRating: option({
    type: "number",
    help: `mobile ratings at or above this are good coverage (${RATING_MIN + 1}-${RATING_MAX}; default the scale's own: ${defaultGood("current")} on the current scale, ${defaultGood("legacy")} on the legacy one)`,
    // the range is the report's own check (a ReportError naming it); here only the form
    parse: (raw, name): number | undefined => {
      if (raw === undefined) return undefined;
      if (!/^\d+$/.test(String(raw))) throw new ConfigError(`${name}: expected a whole number, got ${JSON.stringify(String(raw))}`);
      return Number(raw);
    },
  }),
  /** batch, report; export with its own help */
  areaFile: option({
    type: "string",
    help: "CSV of postcodes and their areas (e.g. an ONS postcode directory extract) whose columns --group-by can name and whose lat/long place them on the map",
    parse: text,
  }),
  /** batch, report */
  uprnColumn: option({ type: "string", help: "input column holding a UPRN: enriched.csv and the workbook give that property's own figures", parse: text }),
  /** batch, report */
  workbookRows: option({
    type: "number",
    default: DEFAULT_WORKBOOK_ROWS,
    help: "rows a sheet of coverage.xlsx may hold (Your rows, Postcodes, Broadband, Mobile); a longer one holds a note naming its CSV and Parquet export instead",
    parse: wholeNumber(0, SHEET_MAX_ROWS),
  }),
  /** report, export: a run id, as a number */
  run: option({
    type: "string",
    help: "this run's postcodes instead of the last run's (an id from npm run status)",
    parse: (raw, name): number | undefined => {
      if (raw === undefined) return undefined;
      if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ConfigError(`${name}: "${raw}" is not a run id (a whole number; npm run status lists them)`);
      return Number(raw);
    },
  }),
  /** report, export */
  all: option({ type: "boolean", help: "every stored postcode instead", parse: (raw) => raw === true }),
};
