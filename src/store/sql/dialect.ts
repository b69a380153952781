// What the two engines spell differently in the SQL that is otherwise written once (src/store/sql/):
// each engine supplies one Dialect (sqlite/dialect.ts, postgres/dialect.ts). Every difference the
// shared SQL needs is a member here, so a third engine is one more object of this shape.
import type { Cell } from "../snapshot.js";

export interface Dialect {
  readonly engine: "sqlite" | "postgres";
  /** what follows a text column in ORDER BY or MIN/MAX for byte order ("" on SQLite, whose default it is) */
  readonly byteOrder: string;
  /** a NULL typed as a double */
  readonly nullDouble: string;
  /** a false condition */
  readonly falseSql: string;
  /** a compact postcode column in its display form (outward code, space, inward code) */
  displayPostcode(column: string): string;
  /** the cell at `index` (from 0) of stored input cells (a JSON array of text), as text; NULL past its end */
  cell(cells: string, index: number): string;
  /** the number of cells of stored input cells */
  cellCount(cells: string): string;
  /** a cell's text as a UPRN: digits only (spaces around allowed, at most 15), else NULL */
  uprn(text: string): string;
  /** an expression as a double (division and averages in floating point, as SQLite computes them) */
  real(expr: string): string;
  /** ROUND(expr, digits) of a double, giving the same number on both engines */
  round(expr: string, digits: number): string;
  /** a condition as 1 or 0 (PostgreSQL's comparisons are booleans) */
  asInt(condition: string): string;
  /** expressions joined into one text with commas, NULL printed as empty (a row's mobile cells) */
  joinCells(cells: readonly string[]): string;
  /** a value the driver hands back as a report cell (booleans as 1/0) */
  asCell(value: unknown): Cell;
  /** the statements that make a temporary table of the snapshot (gone with it); `keyed`: it has a primary key to store rows by */
  temporaryTable(name: string, columns: string, keyed: boolean): string[];
  /** column types of the snapshot's tables: a double, a 64-bit integer, a text sorted byte by byte */
  readonly doubleType: string;
  readonly integerType: string;
  readonly byteText: string;
  /** the join that keeps its left table as the outer loop (SQLite plans CROSS JOIN in the order written) */
  readonly orderedJoin: string;
  /** what ends a subquery whose rows come in `column` order, so that the engine keeps it apart (SQLite's ORDER BY … LIMIT -1) */
  keepOrder(column: string): string;
  /** an expression as an exact decimal (PostgreSQL's numeric; SQLite's numbers as they are) */
  numeric(expr: string): string;
  /** the names of the tables in the current schema (column `name`) */
  readonly tableNamesSql: string;
  /** the names of a table's columns (column `name`; either case) */
  columnNamesSql(table: string): string;
  /** the name of the schema the store's tables are in (column `name`) */
  readonly schemaSql: string;
  /** the postcode's part (area, district, sector) of a valid compact postcode column, NULL where there is none */
  postcodePart(part: "area" | "district" | "sector", column: string): string;
  /** statements that set up the session before a packed export read */
  readonly packedSetup: readonly string[];
  /** a packed export row's cell: a number as its exact text, a text as "r" and itself or "x" and its hex (PackedExportRows) */
  packedCell(value: string, text: boolean): string;
  /** cells joined by the cell separator into one text */
  packCells(cells: readonly string[]): string;
  /** the aggregate joining a postcode's packed rows by the row separator in `orderBy` order, and their count */
  packRows(row: string, orderBy: string): string;
  /** the postcode an aggregate over the postcode table (alias `postcodes`) joined to an address table (alias `addresses`) groups by: SQLite reads the postcode table's in index order; PostgreSQL hashes the address table's, as it always did */
  groupKey(postcodes: string, addresses: string): string;
  /** what follows a SELECT to lock its rows for the transaction ("" on SQLite, whose write transaction locks the database) */
  readonly lockRows: string;
  /** a statement that makes the next id of `table` follow its highest stored id (null where that is the engine's own rule) */
  nextIdAfterMax(table: string): string | null;
  /** a query that returns a row when `table` has `column` (a reader never migrates: an older database may lack it) */
  columnExists(table: string, column: string): string;
  /** the position of `part` in `text` from 1, 0 when absent, NULL when `text` is NULL */
  position(text: string, part: string): string;
  /** a table `e` of the elements of a JSON array given as text (one parameter for many rows), its column `value` (read a cell with `cell`) */
  jsonElements(json: string): string;
}

/** Text sorted byte by byte in this dialect: `column` followed by its byte-order collation. */
export const inByteOrder = (d: Dialect, column: string): string => (d.byteOrder === "" ? column : `${column} ${d.byteOrder}`);
