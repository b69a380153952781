// The export's tables as SQL: where each table's rows come from and in which key order, the order
// of a packed table's rows within one postcode, and each column's expression over the table's alias `t`.
import type { ExportTableName, PackedExportTable } from "../../snapshot.js";
import { inByteOrder, type Dialect } from "../dialect.js";
import { AREA_TABLE } from "./postcode-table.js";

export interface ExportSource {
  table: string;
  /** the rows' key order */
  orderBy: string;
  /** limited to the run's postcodes when a run is exported */
  scoped: boolean;
}

/** Each export table's rows: its store table and key order. */
export function exportSources(d: Dialect): Record<ExportTableName, ExportSource> {
  const postcode = inByteOrder(d, "t.postcode");
  const lookup = inByteOrder(d, "t.lookup");
  return {
    broadband: { table: "broadband_addresses", orderBy: `${postcode}, t.uprn`, scoped: true },
    mobile: { table: "mobile_addresses", orderBy: `${postcode}, t.uprn`, scoped: true },
    postcodes: { table: "lookups", orderBy: `${postcode}, ${lookup}`, scoped: true },
    versions: { table: "answer_versions", orderBy: `${postcode}, ${lookup}, t.id`, scoped: true },
    runs: { table: "runs", orderBy: "t.id", scoped: false },
    releases: { table: "releases", orderBy: "t.id", scoped: false },
  };
}

/** A packed table's order within one postcode: its key order after the postcode. */
export function withinPostcode(d: Dialect): Record<PackedExportTable, string> {
  const lookup = inByteOrder(d, "t.lookup");
  return { broadband: "t.uprn", mobile: "t.uprn", postcodes: lookup, versions: `${lookup}, t.id` };
}

/** A column's expression over the table's alias `t`; the coordinates from the area table when loaded. */
export function exportExpression(d: Dialect, name: string, areaLoaded: boolean): string {
  switch (name) {
    case "PostCode":
      return d.displayPostcode("t.postcode");
    case "UPRN":
      return "t.uprn";
    case "AddressShortDescription":
      return "t.address";
    case "address_count":
      // a count the API gave: empty for a failure with no answer kept, and for a postcode it does not know
      return `(CASE WHEN t.status = 'ok' OR (t.status = 'failed' AND t.address_count > 0) THEN t.address_count END)`;
    case "latitude":
    case "longitude":
      return areaLoaded ? `(SELECT a.${name} FROM ${AREA_TABLE} a WHERE a.postcode = t.postcode)` : d.nullDouble;
    default:
      return `t.${name}`;
  }
}
