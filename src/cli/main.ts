#!/usr/bin/env node
// postcode-coverage batch|report|status|export|simulate|demo [options]: the installed command (npm
// install -g), one entry for the commands `npm run <name>` runs from a clone. It runs the compiled
// build in dist/ with plain node; from a clone, `node --import tsx src/cli/main.ts` does the same.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setCommandName } from "./run-cli.js";
import { demoSteps } from "./demo-steps.js";
import { toolVersion } from "../contract/version.js";

const COMMANDS = ["batch", "report", "status", "export", "simulate"] as const;
const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const USAGE = `usage: postcode-coverage <command> [options]
       postcode-coverage --version

commands:
  batch     look up the postcodes of a CSV and write the reports (postcode-coverage batch --help)
  report    write the reports again from the database, without fetching
  status    the last runs, releases and quota plan of a database
  export    the stored answers as Parquet or CSV
  simulate  serve the bundled simulator of the coverage API
  demo      the sample file against the bundled simulator, into ./demo

Examples:
  postcode-coverage demo
      the sample postcodes against the bundled simulator; the reports land in ./demo
  postcode-coverage batch --in postcodes.csv
      look up every postcode of postcodes.csv and write the reports to ./output
`;

/** Runs one command of this program in a child process (the demo's steps one after another). */
function runStep(command: string, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), command, ...args], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(code ?? (signal ? 128 + 15 : 1)));
  });
}

async function demo(): Promise<number> {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  for (const step of demoSteps(pkg.scripts.demo!, PACKAGE_ROOT, process.cwd())) {
    const code = await runStep(step.command, step.args);
    if (code !== 0) return code;
  }
  return 0;
}

async function main(): Promise<void> {
  const command = process.argv[2];
  // the commands' own --version is run-cli.ts's; the program's and the demo's are answered here
  if (command === "--version" || (command === "demo" && process.argv.includes("--version"))) {
    process.stdout.write(toolVersion() + "\n");
    return;
  }
  if (command === "demo") {
    process.exitCode = await demo();
    return;
  }
  if (!(COMMANDS as readonly string[]).includes(command ?? "")) {
    const asked = command === undefined || command === "--help" || command === "-h";
    process[asked ? "stdout" : "stderr"].write((asked ? "" : `error: unknown command ${JSON.stringify(command)}\n`) + USAGE);
    process.exitCode = asked ? 0 : 1;
    return;
  }
  // the command's own module reads its options from process.argv, after the command's name
  process.argv.splice(2, 1);
  setCommandName(`postcode-coverage ${command}`);
  const module = join(fileURLToPath(new URL(".", import.meta.url)), `${command}.js`);
  await import(existsSync(module) ? module : module.replace(/\.js$/, ".ts"));
}

void main();
