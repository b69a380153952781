// How many rows a sheet of coverage.xlsx may hold: a leaf, so that the commands' option tables
// (--workbook-rows) read these without loading the workbook's writer.
import { EXCEL_MAX_ROWS } from "../../figures/definitions.js";

/** Rows a sheet holds below its header. */
export const SHEET_MAX_ROWS = EXCEL_MAX_ROWS - 1;

/**
 * --workbook-rows' default. Measured (docs/bench.md): a 100,000-row address sheet takes LibreOffice
 * about 4 s to open; ten times that is about a minute, and unusable to scroll or filter.
 */
export const DEFAULT_WORKBOOK_ROWS = 100_000;
