// The report SQL's PostgreSQL spellings, now members of the engine's Dialect (../dialect.ts).
import { POSTGRES_DIALECT } from "../dialect.js";

export { bind, BYTE_ORDER, type Bound } from "../dialect.js";

/** A compact postcode as displayed (outward code, space, inward code). */
export const displayPostcodeSql = POSTGRES_DIALECT.displayPostcode;

/** The index-th cell (from 0) of the stored input cells, a JSON array of text; NULL past its end. */
export const cellSql = POSTGRES_DIALECT.cell;

/** SQLite hands back 0/1 for a comparison; PostgreSQL a boolean: the reports read numbers. */
export const asCell = POSTGRES_DIALECT.asCell;
