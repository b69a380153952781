// How one table's rows travel from SQLite to DuckDB. Each value crossing into JavaScript costs more
// than SQLite or DuckDB spend on it, so a row's numbers (a UPRN and 8 speeds, or a UPRN and 32
// ratings) cross as one text cell that SQLite's printf joins and DuckDB splits and casts again;
// only text columns (a postcode, an address) cross on their own. Doubles are printed with 17
// significant digits, so every value survives exactly; an empty cell is NULL. Other values are
// staged as JavaScript hands them over and cast by DuckDB on the way out (a timestamp is its ISO
// text). Pure: SQL text only.
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

const NUMERIC: ReadonlySet<ExportType> = new Set(["TINYINT", "INTEGER", "BIGINT", "DOUBLE", "BOOLEAN"]);

/** Numbers joined into one cell, at most this many a cell (SQLite functions take up to 1,000 arguments). */
const PACK_LIMIT = 500;

export interface StagePlan {
  /** SQLite expressions: one per staged column, then, for a grouped plan, the group's row count */
  read: string[];
  /** the read is one row per postcode, its rows joined (groupedPlan): GROUP BY t.postcode */
  grouped: boolean;
  /** the staging table's columns, in the order of `read` */
  stage: { name: string; type: StageType }[];
  /** DuckDB SELECT over the table `stage` giving the export's typed columns in their order */
  select: string;
}

/** A number as printf's %s argument: its exact text, or empty for NULL. */
function numberText(c: ExportColumn): string {
  return c.type === "DOUBLE" ? `iif(${c.sql} IS NULL, '', printf('%!.17g', ${c.sql}))` : c.sql;
}

/** Text of a packed cell back to its type (a flag via its integer). */
function fromText(text: string, type: ExportType): string {
  const value = `NULLIF(${text}, '')`;
  return type === "BOOLEAN" ? `CAST(CAST(${value} AS INTEGER) AS BOOLEAN)` : `CAST(${value} AS ${type})`;
}

export function stagePlan(columns: readonly ExportColumn[]): StagePlan {
  const numbers = columns.filter((c) => NUMERIC.has(c.type));
  const pack = numbers.length > 1;
  const direct = pack ? columns.filter((c) => !NUMERIC.has(c.type)) : [...columns];
  const groups: ExportColumn[][] = [];
  if (pack) for (let i = 0; i < numbers.length; i += PACK_LIMIT) groups.push(numbers.slice(i, i + PACK_LIMIT));

  const read = [
    ...direct.map((c) => c.sql),
    // printf's %s prints NULL as an empty cell.
    ...groups.map((g) => `printf('${g.map(() => "%s").join(",")}', ${g.map(numberText).join(", ")})`),
  ];
  const stage = [
    ...direct.map((c) => ({ name: c.name, type: STAGE_TYPE[c.type] })),
    ...groups.map((_, g) => ({ name: `__packed_${g}`, type: "VARCHAR" as const })),
  ];
  const out = columns.map((c) => {
    const name = quote(c.name);
    if (pack && NUMERIC.has(c.type)) {
      const index = numbers.indexOf(c);
      return `${fromText(`__parts_${Math.floor(index / PACK_LIMIT)}[${(index % PACK_LIMIT) + 1}]`, c.type)} AS ${name}`;
    }
    return STAGE_TYPE[c.type] === c.type ? name : `${fromText(name, c.type)} AS ${name}`;
  });
  const from =
    groups.length > 0 ? `(SELECT *, ${groups.map((_, g) => `string_split(__packed_${g}, ',') AS __parts_${g}`).join(", ")} FROM stage)` : "stage";
  return { read, stage, grouped: false, select: `SELECT ${out.join(", ")} FROM ${from}` };
}

/** Text in a packed cell: empty for NULL, else "x" and its UTF-8 bytes in hex, which hold no separator. */
function textCell(c: ExportColumn): string {
  return `iif(${c.sql} IS NULL, '', 'x' || hex(${c.sql}))`;
}

/** printf of these cells joined by commas, in calls of at most PACK_LIMIT arguments. */
function joinedSql(cells: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i += PACK_LIMIT) {
    const chunk = cells.slice(i, i + PACK_LIMIT);
    parts.push(`printf('${chunk.map(() => "%s").join(",")}', ${chunk.join(", ")})`);
  }
  return parts.join(" || ',' || ");
}

/**
 * For a table read in postcode order whose first column is the postcode: one read row per postcode,
 * every address of it joined by SQLite into one text cell (rows by ";", cells by ","; text as hex),
 * which DuckDB splits back. A postcode's 17 addresses then cost JavaScript one string, not 17 rows.
 */
export function groupedPlan(columns: readonly ExportColumn[]): StagePlan {
  const [key, ...rest] = columns;
  if (!key || key.type !== "VARCHAR") throw new Error("internal: a grouped export table starts with its text key");
  const isText = (c: ExportColumn) => c.type === "VARCHAR" || c.type === "TIMESTAMP";
  const cells = rest.map((c) => (isText(c) ? textCell(c) : numberText(c)));
  const out = rest.map((c, i) => {
    const cell = `__cells[${i + 1}]`;
    const value = isText(c) ? `decode(unhex(NULLIF(${cell}, '')[2:]))` : cell;
    const typed = c.type === "VARCHAR" ? value : c.type === "TIMESTAMP" ? `CAST(${value} AS TIMESTAMP)` : fromText(value, c.type);
    return `${typed} AS ${quote(c.name)}`;
  });
  const k = quote(key.name);
  return {
    read: [key.sql, `group_concat(${joinedSql(cells)}, ';')`, "count(*)"],
    stage: [
      { name: key.name, type: "VARCHAR" },
      { name: "__rows", type: "VARCHAR" },
    ],
    grouped: true,
    select:
      `SELECT ${k}, ${out.join(", ")} FROM (SELECT ${k}, string_split(__row, ',') AS __cells ` +
      `FROM (SELECT ${k}, unnest(string_split(__rows, ';')) AS __row FROM stage))`,
  };
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
