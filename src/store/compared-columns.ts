// What each stored column says of two runs of one list against one dataset, one with faults,
// retries, kills and restarts and one clean: the same (what the answers are: the two must end
// holding exactly the same value) or different, and why (how and when a run got them). Every table
// of both engines is classed here, once: the soak compares a chaos run's database with a clean
// run's by it, and test/compared-columns.test.ts fails when a table or a column is added to the
// schema without a class.
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { LOOKUPS, type Lookup } from "../contract/fields.js";
import { OPEN_DATA_COLUMNS } from "../contract/open-data.js";

/** "same": a run with faults and kills ends with a clean run's value; otherwise why it may not. */
export type ColumnClass = "same" | { differs: string };

export interface ComparedTable {
  compared: true;
  /** the columns a row is matched on between the two databases (none: the one row compared) */
  key: readonly string[];
  /** every row, or only each database's last run's: the column naming the run ("id" in runs) */
  rows: "all" | { lastRunBy: string };
  columns: Readonly<Record<string, ColumnClass>>;
  /** a lookup whose value fields (contract/fields.ts, per provider for mobile) are further columns, all "same" */
  valuesOf?: Lookup;
}

export interface UncomparedTable {
  compared: false;
  why: string;
}

export type TableClass = (ComparedTable | UncomparedTable) & {
  /** a table only one engine has */
  only?: "sqlite" | "postgres";
};

const SAME = "same" as const;
const differs = (why: string): ColumnClass => ({ differs: why });

const RUN_ID = differs("the run that wrote it: a kill or a re-run makes another");
const WHEN = differs("the time of the run");

const addressTable = (lookup: Lookup): TableClass => ({
  compared: true,
  key: ["postcode", "uprn"],
  rows: "all",
  columns: { postcode: SAME, uprn: SAME, address: SAME },
  valuesOf: lookup,
});

export const COMPARED_COLUMNS: Readonly<Record<string, TableClass>> = {
  lookups: {
    compared: true,
    key: ["postcode", "lookup"],
    rows: "all",
    columns: {
      postcode: SAME,
      lookup: SAME,
      status: SAME,
      http_status: SAME,
      attempts: differs("retries add attempts"),
      last_error: differs("the last fault met before the answer"),
      fetched_at: differs("the time of the last attempt"),
      run_id: RUN_ID,
      dataset: SAME,
      address_count: SAME,
      providers: SAME,
      simulated: SAME,
      version_id: differs("versions are numbered in the order answers arrived"),
      release: SAME,
      returned_at: differs("when the API last returned the answer: the time of the run"),
      scale_ratings: SAME,
      scale_legacy_ratings: SAME,
      rating_counts: SAME,
    },
  },
  ...Object.fromEntries(LOOKUPS.map((lookup) => [LOOKUP_SPECS[lookup].table, addressTable(lookup)])),
  answer_versions: {
    compared: true,
    key: ["postcode", "lookup", "hash"],
    rows: "all",
    columns: {
      id: differs("numbered in the order answers arrived"),
      postcode: SAME,
      lookup: SAME,
      status: SAME,
      hash: SAME,
      release: SAME,
      first_seen: WHEN,
      last_seen: WHEN,
      run_id: RUN_ID,
      simulated: SAME,
      address_count: SAME,
      providers: SAME,
      content: SAME,
    },
  },
  releases: {
    compared: true,
    key: ["lookup", "name"],
    rows: "all",
    columns: {
      id: differs("numbered in the order first seen, which the lookups' answers race for"),
      lookup: SAME,
      name: SAME,
      detected_at: WHEN,
      run_id: RUN_ID,
      scale: SAME,
      scale_ratings: SAME,
      scale_legacy_ratings: SAME,
    },
  },
  runs: {
    compared: true,
    key: [],
    rows: { lastRunBy: "id" },
    columns: {
      id: differs("a run with kills and re-runs has more runs before its last"),
      started_at: WHEN,
      ended_at: WHEN,
      state: SAME,
      exit_code: SAME,
      simulated: SAME,
      input_name: SAME,
      input_columns: SAME,
      postcode_column: SAME,
      args: differs("the options, which name the API's address and the pace"),
      lookups: SAME,
      providers: SAME,
      input_rows: SAME,
      postcodes: SAME,
      rejects: SAME,
      ok: SAME,
      not_found: SAME,
      failed: SAME,
      pending: SAME,
      requests: differs("retries, 429s and requests lost to kills"),
      retries: differs("faults are retried"),
      throttled: differs("429s met"),
      message: SAME,
      lease_id: differs("every run takes a lease of its own"),
    },
  },
  run_rows: {
    compared: true,
    key: ["line"],
    rows: { lastRunBy: "run_id" },
    columns: { run_id: RUN_ID, line: SAME, value: SAME, postcode: SAME, reason: SAME, cells: SAME },
  },
  expired_answers: {
    compared: true,
    key: ["postcode", "lookup"],
    rows: "all",
    columns: { postcode: SAME, lookup: SAME, expired_at: WHEN },
  },
  open_data: {
    compared: true,
    key: ["postcode", "premises"],
    rows: "all",
    columns: { postcode: SAME, premises: SAME, ...Object.fromEntries(OPEN_DATA_COLUMNS.map((c) => [c, SAME])) },
  },
  open_data_imports: {
    compared: true,
    key: ["month", "revision"],
    rows: "all",
    columns: {
      id: differs("numbered in the order imported"),
      month: SAME,
      revision: SAME,
      source: SAME,
      fingerprint: SAME,
      imported_at: WHEN,
      files: SAME,
      postcodes: SAME,
      residential: SAME,
      run_id: RUN_ID,
    },
  },
  claims: {
    compared: true,
    key: ["lookup", "postcode"],
    rows: "all",
    columns: { lookup: SAME, postcode: SAME, lease_id: differs("the claiming run's lease"), run_id: RUN_ID },
  },
  answers_version: { compared: false, why: "a counter raised by every change to the answers: retries and re-runs change them more often" },
  leases: { compared: false, why: "which process held the database, and until when" },
  ledger_reservations: { compared: false, why: "quota reserved by running batches: a killed run's lapses with its lease" },
  request_ledger: { compared: false, why: "every request sent: retries, 429s and requests lost to kills add rows" },
  quota_blocks: { compared: false, why: "the service's own quota answers, which depend on the requests sent" },
  refresh_marks: { compared: false, why: "a --refresh in progress: which runs were told --refresh" },
  release_checks: { compared: false, why: "when each release was last checked, by probes or by answers: which depends on the runs made" },
  run_needs: { compared: false, why: "what each run planned to fetch: a resumed run plans only what is left" },
  tool_version: { compared: false, why: "the version of the program that last opened the database to write: one build runs both" },
  sample_seed: { compared: false, why: "chosen at random by the first batch" },
  sqlite_sequence: { compared: false, why: "SQLite's own counter of AUTOINCREMENT ids", only: "sqlite" },
  ledger_periods: { compared: false, why: "the requests counted per quota period: retries and repeats count", only: "postgres" },
  schema_version: { compared: false, why: "the schema's version, which the engine's migrations set (SQLite keeps it in user_version)", only: "postgres" },
  pace: { compared: false, why: "the shared pacer's state: the times requests were sent", only: "postgres" },
};

/**
 * A column's class, or null when the declaration has none (the table is not compared, or the
 * column is new). Value fields of any provider count: a run may ask for others than the defaults.
 */
export function columnClass(table: string, column: string): ColumnClass | null {
  const t = COMPARED_COLUMNS[table];
  if (!t?.compared) return null;
  // both engines ignore the case of an unquoted name; PostgreSQL reports it in lower case
  const name = column.toLowerCase();
  const declared = Object.entries(t.columns).find(([c]) => c.toLowerCase() === name);
  if (declared) return declared[1];
  return t.valuesOf && isValueField(t.valuesOf, name) ? SAME : null;
}

function isValueField(lookup: Lookup, name: string): boolean {
  const spec = LOOKUP_SPECS[lookup];
  if (!spec.perProvider) return spec.valueFields([]).some((f) => f.toLowerCase() === name);
  // <Provider><field>: the same fields for every provider, so one named "X" shows what follows the name
  const suffixes = spec.valueFields(["X"]).map((f) => f.slice(1).toLowerCase());
  return suffixes.some((s) => name.length > s.length && name.endsWith(s));
}
