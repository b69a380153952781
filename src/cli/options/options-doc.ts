// docs/options.md from the command tables: `npm run options-table` writes it; a test checks it is current.
import { BATCH_OPTIONS } from "../batch-options.js";
import { EXPORT_OPTIONS } from "../export-options.js";
import { REPORT_OPTIONS } from "../report-options.js";
import { SIMULATE_OPTIONS } from "../simulate-options.js";
import { STATUS_OPTIONS } from "../status-options.js";
import { flagName, type OptionSpec } from "./engine.js";

/** The commands whose options docs/options.md lists, in its order. */
export const COMMAND_OPTIONS = {
  batch: BATCH_OPTIONS,
  report: REPORT_OPTIONS,
  export: EXPORT_OPTIONS,
  status: STATUS_OPTIONS,
  simulate: SIMULATE_OPTIONS,
};

/** The option tables for docs/options.md, one per command. */
export function optionsTable(): string {
  const section = (command: string, table: object) => {
    const rows = (Object.entries(table) as [string, OptionSpec][])
      .filter(([, spec]) => !spec.hidden)
      .map(([name, spec]) => {
        const def = spec.default === undefined ? (spec.required ? "required" : "") : `\`${String(spec.default)}\``;
        const env = spec.env ? `\`${spec.env}\`` : "";
        return `| \`${flagName(name)}\` | ${spec.type} | ${def} | ${env} | ${spec.help.replace(/\|/g, "\\|")} |`;
      });
    return [`## npm run ${command}`, "", "| Option | Type | Default | Environment | What it does |", "| --- | --- | --- | --- | --- |", ...rows, ""];
  };
  return [
    "# Options",
    "",
    "Generated from `src/cli/*-options.ts` by `npm run options-table`; do not edit by hand. Options several",
    "commands take (`--db`, `--run`, ...) are declared once and mean the same in each.",
    "",
    ...Object.entries(COMMAND_OPTIONS).flatMap(([command, table]) => section(command, table)),
  ].join("\n");
}
