// npm run options-table: writes docs/options.md from the option declarations (src/pipeline/options.ts).
import { writeFileSync } from "node:fs";
import { optionsTable } from "../pipeline/options.js";

export const OPTIONS_DOC = new URL("../../docs/options.md", import.meta.url);

writeFileSync(OPTIONS_DOC, optionsTable());
process.stdout.write(`wrote ${OPTIONS_DOC.pathname}\n`);
