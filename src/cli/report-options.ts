// npm run report's options: rewrites the report set from the database.
import { option, text } from "./options/engine.js";
import { SHARED_OPTIONS } from "./options/shared.js";

export const REPORT_OPTIONS = {
  db: SHARED_OPTIONS.db,
  out: SHARED_OPTIONS.out,
  run: SHARED_OPTIONS.run,
  all: SHARED_OPTIONS.all,
  bom: option({ type: "boolean", default: true, help: "start each CSV with a UTF-8 BOM (--no-bom drops it)", parse: (raw) => raw !== false }),
  since: option({
    type: "string",
    help: "changes.csv: compare with the answers as they were at this run id or date (default: each answer's previous version)",
    parse: text,
  }),
  mobileScale: SHARED_OPTIONS.mobileScale,
  goodRating: SHARED_OPTIONS.goodRating,
  groupBy: SHARED_OPTIONS.groupBy,
  areaFile: SHARED_OPTIONS.areaFile,
  uprnColumn: SHARED_OPTIONS.uprnColumn,
  workbookRows: SHARED_OPTIONS.workbookRows,
  attribution: SHARED_OPTIONS.attribution,
};
