// A report writer or an export that SIGKILLs itself at one named step: before a file of the set is
// written, before each rename of the swap, before the commit (the report set, report-set.ts), or
// before each table is written, its new version made and linked, moved aside (an export from
// before versions), moved in or its old one deleted (the export, write-export.ts).
// With STEP `list` it runs to the end and prints every step it passed, one a line.
//
//   tsx soak/crash-writer.ts report|export DB OUT STEP
//
// Used by the soak's crash-point step and by test/out-writers.test.ts.
import { openStore } from "../src/store/open-store.js";
import { writeReports } from "../src/report/index.js";
import { writeExport } from "../src/export/write-export.js";

const [what, dbPath, out, target] = process.argv.slice(2);
if ((what !== "report" && what !== "export") || !dbPath || !out || !target) {
  process.stderr.write("usage: tsx soak/crash-writer.ts report|export DB OUT STEP|list\n");
  process.exit(64);
}
const onStep = (step: string) => {
  if (target === "list") process.stdout.write(step + "\n");
  else if (step === target) process.kill(process.pid, "SIGKILL");
};
const store = await openStore(dbPath, { readonly: true });
try {
  if (what === "report") await writeReports(store, { outDir: out, onStep, onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });
  else await writeExport(store, { outDir: out, all: true, fileRows: 50, onStep, onProgress: (m) => process.stderr.write(`export: ${m}\n`) });
} finally {
  await store.close();
}
