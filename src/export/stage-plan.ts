// How one table's rows travel from SQLite to DuckDB. Each value crossing into JavaScript costs more
// than SQLite or DuckDB spend on it, so the many small columns (the 32 mobile ratings) cross as one
// text cell that SQLite's printf joins and DuckDB splits again. Other values are staged in the
// types JavaScript hands over cheaply and cast by DuckDB on the way out: a UPRN as a double (exact
// up to 2^53), a timestamp as its ISO text, a flag as an integer. Pure: SQL text only.
import type { ExportColumn, ExportType } from "./tables.js";

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

/** Small integers joined into one cell, at most this many a cell (SQLite functions take up to 1,000 arguments). */
const PACK_LIMIT = 500;

export interface StagePlan {
  /** SQLite expressions, one per staged column */
  read: string[];
  /** the staging table's columns, in the order of `read` */
  stage: { name: string; type: StageType }[];
  /** DuckDB SELECT over the table `stage` giving the export's typed columns in their order */
  select: string;
}

export function stagePlan(columns: readonly ExportColumn[]): StagePlan {
  const packed = columns.filter((c) => c.type === "TINYINT");
  const pack = packed.length > 1;
  const direct = pack ? columns.filter((c) => c.type !== "TINYINT") : [...columns];
  const groups: ExportColumn[][] = [];
  if (pack) for (let i = 0; i < packed.length; i += PACK_LIMIT) groups.push(packed.slice(i, i + PACK_LIMIT));

  const read = [
    ...direct.map((c) => c.sql),
    // printf's %s prints NULL as an empty cell; DuckDB turns it back into NULL.
    ...groups.map((g) => `printf('${g.map(() => "%s").join(",")}', ${g.map((c) => c.sql).join(", ")})`),
  ];
  const stage = [
    ...direct.map((c) => ({ name: c.name, type: STAGE_TYPE[c.type] })),
    ...groups.map((_, g) => ({ name: `__packed_${g}`, type: "VARCHAR" as const })),
  ];
  const out = columns.map((c) => {
    const name = quote(c.name);
    if (pack && c.type === "TINYINT") {
      const index = packed.indexOf(c);
      const g = Math.floor(index / PACK_LIMIT);
      return `CAST(NULLIF(__parts_${g}[${(index % PACK_LIMIT) + 1}], '') AS TINYINT) AS ${name}`;
    }
    return STAGE_TYPE[c.type] === c.type ? name : `CAST(${name} AS ${c.type}) AS ${name}`;
  });
  const from = groups.length > 0 ? `(SELECT *, ${groups.map((_, g) => `string_split(__packed_${g}, ',') AS __parts_${g}`).join(", ")} FROM stage)` : "stage";
  return { read, stage, select: `SELECT ${out.join(", ")} FROM ${from}` };
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
