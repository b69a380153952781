// npm run export's options: the stored answers as Parquet or CSV.
import { ConfigError } from "./options/config-values.js";
import { EXPORT_FORMATS, type ExportFormat } from "../export/write-export.js";
import { option } from "./options/engine.js";
import { SHARED_OPTIONS } from "./options/shared.js";

export const EXPORT_OPTIONS = {
  db: SHARED_OPTIONS.db,
  out: option({ type: "string", required: true, help: "directory for the export", parse: (raw) => raw! }),
  format: option({
    type: "string",
    default: "parquet",
    help: EXPORT_FORMATS.join(" or "),
    parse: (raw, name): ExportFormat => {
      if (!(EXPORT_FORMATS as readonly string[]).includes(raw!)) throw new ConfigError(`${name}: "${raw}" is not one of ${EXPORT_FORMATS.join(", ")}`);
      return raw as ExportFormat;
    },
  }),
  run: SHARED_OPTIONS.run,
  all: SHARED_OPTIONS.all,
  areaFile: {
    ...SHARED_OPTIONS.areaFile,
    help: "CSV of postcodes with lat and long columns (e.g. an ONS postcode directory extract): the postcodes table's latitude and longitude",
  },
};
