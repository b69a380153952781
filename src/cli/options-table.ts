// npm run options-table: writes docs/options.md from the option declarations (src/cli/*-options.ts).
import { writeFileSync } from "node:fs";
import { optionsTable } from "./options/options-doc.js";
import { runCli } from "./run-cli.js";

const OPTIONS_DOC = new URL("../../docs/options.md", import.meta.url);

runCli({
  name: "options-table",
  usage: "$0\n\nWrites docs/options.md, the table of the batch's options, from their declarations in src/cli/*-options.ts.",
  examples: [["$0", "rewrite docs/options.md after an option changed"]],
  options: (y) => y,
  run: () => {
    writeFileSync(OPTIONS_DOC, optionsTable());
    process.stdout.write(`wrote ${OPTIONS_DOC.pathname}\n`);
    return 0;
  },
});
