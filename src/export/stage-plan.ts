// The Parquet writer's DuckDB SQL, all of it (no store SQL: the rows come from the snapshot). One
// table's rows are staged in DuckDB: the snapshot's typed values go into a staging table through
// the appender, a column a type JavaScript can hand over (a UPRN as a double, a flag as an
// integer, a timestamp as its ISO text), and DuckDB casts them to the export's types as it copies
// them to a file. Pure: DuckDB SQL text only.
import type { ExportColumn, ExportType } from "../figures/export-tables.js";
import { CELL_SEPARATOR, ROW_SEPARATOR } from "../store/snapshot.js";

type StageType = "VARCHAR" | "DOUBLE" | "INTEGER" | "TINYINT";

const STAGE_TYPE: Record<ExportType, StageType> = {
  VARCHAR: "VARCHAR",
  BIGINT: "DOUBLE",
  INTEGER: "INTEGER",
  TINYINT: "TINYINT",
  DOUBLE: "DOUBLE",
  BOOLEAN: "INTEGER",
  TIMESTAMP: "VARCHAR",
};

export interface StagePlan {
  /** the staging table's columns, one per export column, in order */
  stage: { name: string; type: StageType }[];
  /** DuckDB SELECT over the table `stage` giving the export's typed columns in their order */
  select: string;
}

export function stagePlan(columns: readonly ExportColumn[]): StagePlan {
  const stage = columns.map((c) => ({ name: c.name, type: STAGE_TYPE[c.type] }));
  const out = columns.map((c) => {
    const name = quote(c.name);
    return STAGE_TYPE[c.type] === c.type ? name : `CAST(${name} AS ${c.type}) AS ${name}`;
  });
  return { stage, select: `SELECT ${out.join(", ")} FROM stage` };
}

/**
 * For a table read packed one postcode a row (PackedExportRows in src/store/snapshot.ts):
 * the postcode and its packed rows are staged, and DuckDB splits the rows (ROW_SEPARATOR) and their
 * cells (CELL_SEPARATOR), takes each text as it is ("r") or from its hex ("x"), and casts every
 * other cell to its type. A postcode's 17 addresses then cost JavaScript one string, not 17 rows
 * of values.
 */
export function packedPlan(columns: readonly ExportColumn[]): StagePlan {
  const [key, ...rest] = columns;
  if (!key || key.type !== "VARCHAR") throw new Error("internal: a packed export table starts with its text key");
  const out = rest.map((c, i) => {
    const cell = `NULLIF(__cells[${i + 1}], '')`;
    const text = `CASE WHEN ${cell}[1] = 'x' THEN decode(unhex(${cell}[2:])) ELSE ${cell}[2:] END`;
    if (c.type === "VARCHAR") return `${text} AS ${quote(c.name)}`;
    // a timestamp from its text, and a flag via its integer, as stagePlan casts them
    const typed =
      c.type === "TIMESTAMP" ? `CAST(${text} AS TIMESTAMP)` : c.type === "BOOLEAN" ? `CAST(CAST(${cell} AS INTEGER) AS BOOLEAN)` : `CAST(${cell} AS ${c.type})`;
    return `${typed} AS ${quote(c.name)}`;
  });
  const k = quote(key.name);
  return {
    stage: [
      { name: key.name, type: "VARCHAR" },
      { name: "__rows", type: "VARCHAR" },
    ],
    select:
      `SELECT ${k}, ${out.join(", ")} FROM (SELECT ${k}, string_split(__row, chr(${CELL_SEPARATOR})) AS __cells ` +
      `FROM (SELECT ${k}, unnest(string_split(__rows, chr(${ROW_SEPARATOR}))) AS __row FROM stage))`,
  };
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The staging table of a plan, on a connection of its own. */
export function createStageSql(plan: StagePlan): string {
  return `CREATE TEMP TABLE stage (${plan.stage.map((c) => `${quote(c.name)} ${c.type}`).join(", ")})`;
}

/** Copies the staged rows, typed, to `file`: zstd-compressed Parquet, or CSV with a header. */
export function copyStageSql(plan: StagePlan, file: string, format: "parquet" | "csv"): string {
  const options = format === "parquet" ? "FORMAT parquet, COMPRESSION zstd" : "FORMAT csv, HEADER true";
  return `COPY (${plan.select}) TO ${literal(file)} (${options})`;
}

/** Empties the staging table for the next file's rows. */
export const CLEAR_STAGE_SQL = "DELETE FROM stage";

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
