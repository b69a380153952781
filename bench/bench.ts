// npm run bench [-- --quick] [--only a,b] [--against COMMIT]: runs every scenario in turn, prints a table
// (scenario, measured, target, met) and writes output/bench.json with every figure, the machine and
// the date. A missed target is reported, not fatal; a scenario that cannot run exits 1.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { runAgainst } from "./against.js";
import { ROUNDS_TO_CALL_WORSE } from "./lib/against.js";
import { isBusy, machineInfo } from "./lib/machine.js";
import { OUTPUT_DIR } from "./lib/paths.js";
import type { BenchContext, Scenario, ScenarioResult } from "./lib/scenario.js";
import { formatTable } from "./lib/table.js";
import { faults } from "./scenarios/faults.js";
import { latencyBound } from "./scenarios/latency-bound.js";
import { memory } from "./scenarios/memory.js";
import { openData } from "./scenarios/open-data.js";
import { overhead } from "./scenarios/overhead.js";
import { rateLimited } from "./scenarios/rate-limited.js";
import { report } from "./scenarios/report.js";
import { scale, SCALE_POSTCODES } from "./scenarios/scale.js";
import { simulatorThroughput } from "./scenarios/simulator-throughput.js";
import { wholeJob } from "./scenarios/whole-job.js";
import { unchangedNight } from "./scenarios/unchanged-night.js";
import { workbook } from "./scenarios/workbook.js";
import { map } from "./scenarios/map.js";
import { team } from "./scenarios/team.js";
import { workbookWriters } from "./scenarios/workbook-writers.js";
import { startup } from "./scenarios/startup.js";
import { toolVersion } from "../src/contract/version.js";
import { national } from "./scenarios/national.js";

const SCENARIOS: readonly Scenario[] = [simulatorThroughput, overhead, wholeJob, unchangedNight, latencyBound, rateLimited, faults, report, memory, workbook, workbookWriters, openData, national, scale, map, team, startup];

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run bench --")
    .version(toolVersion())
    .usage("$0 [--quick] [--only LIST]\n\nMeasures how close the batch runs to its limits; see docs/bench.md.")
    .option("quick", { type: "boolean", default: false, describe: "every scenario scaled down (about a minute instead of seven)" })
    .option("only", { type: "string", describe: `comma-separated scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}` })
    .option("out", { type: "string", default: join(OUTPUT_DIR, "bench.json"), describe: "where to write the figures" })
    .option("scale-postcodes", { type: "number", default: SCALE_POSTCODES, describe: "postcodes of the scale scenario's database (--only scale)" })
    .option("against", { type: "string", describe: "a commit: run the scenarios for the working tree and it, side by side, and print the paired ratios" })
    .option("cli-root", { type: "string", hidden: true, describe: "the tree whose CLIs the scenarios that run them measure (--against sets it for a commit's side)" })
    .option("rounds", { type: "number", default: ROUNDS_TO_CALL_WORSE, describe: `with --against: paired rounds (a figure is called worse only after ${ROUNDS_TO_CALL_WORSE})` })
    .strict()
    .parse();

  const names = argv.only?.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = names?.filter((n) => !SCENARIOS.some((s) => s.name === n)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(`error: unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.map((s) => s.name).join(", ")}\n`);
    return 1;
  }
  const chosen = names ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS.filter((s) => !s.onlyWhenNamed);

  if (argv.against !== undefined) {
    if (!Number.isInteger(argv.rounds) || argv.rounds < 1) {
      process.stderr.write(`error: --rounds: expected a whole number >= 1, got ${argv.rounds}\n`);
      return 1;
    }
    const passOn = [...(argv.quick ? ["--quick"] : []), "--scale-postcodes", String(argv.scalePostcodes)];
    const scenarios = chosen.map((s) => s.name);
    const drivesClis = chosen.filter((s) => s.drivesClis).map((s) => s.name);
    return runAgainst({ commit: argv.against, rounds: argv.rounds, scenarios, drivesClis, passOn, log: (m) => process.stderr.write(`bench: ${m}\n`) });
  }
  if (!Number.isInteger(argv.scalePostcodes) || argv.scalePostcodes < 1) {
    process.stderr.write(`error: --scale-postcodes: expected a whole number >= 1, got ${argv.scalePostcodes}\n`);
    return 1;
  }
  const machine = machineInfo();
  const ctx: BenchContext = { quick: argv.quick, scalePostcodes: argv.scalePostcodes, cliRoot: argv.cliRoot, log: (m) => process.stderr.write(`bench: ${m}\n`) };
  const started = performance.now();
  const date = new Date().toISOString();
  ctx.log(
    `${argv.quick ? "quick" : "full"} run on ${machine.cores} × ${machine.cpuModel}, Node ${machine.node}, ` +
      `load average ${machine.loadAverageAtStart.join(" ")}`,
  );
  if (isBusy(machine.loadAverageAtStart, machine.cores))
    ctx.log("the machine is busy with other work: figures will be noisy (the ratios, measured side by side, less so)");

  const results: ScenarioResult[] = [];
  const errors: { scenario: string; message: string }[] = [];
  for (const s of chosen) {
    const t = performance.now();
    try {
      const r = await s.run(ctx);
      results.push({ scenario: s.name, ...r, seconds: Math.round((performance.now() - t) / 100) / 10 });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      errors.push({ scenario: s.name, message });
      ctx.log(`${s.name} could not run: ${message}`);
    }
  }
  machine.loadAverageAtEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const totalSeconds = Math.round((performance.now() - started) / 100) / 10;

  const missed = results.flatMap((r) => r.checks.filter((c) => c.met === false).map((c) => `${r.scenario}: ${c.what}`));
  const busy = isBusy(machine.loadAverageAtStart, machine.cores) || isBusy(machine.loadAverageAtEnd, machine.cores);
  process.stdout.write(`\n${formatTable(results, errors)}\n\n`);
  process.stdout.write(
    `${argv.quick ? "quick" : "full"} run, ${date}, ${totalSeconds} s; ${machine.cores} × ${machine.cpuModel}, Node ${machine.node}; ` +
      `load average ${machine.loadAverageAtStart[0]} at start, ${machine.loadAverageAtEnd[0]} at end${busy ? " (busy machine: noisy figures)" : ""}\n`,
  );
  const notes = results.flatMap((r) => r.notes);
  const skipped = results.flatMap((r) => r.checks.filter((c) => c.skipped).map((c) => `${r.scenario}: ${c.what} skipped: ${c.skipped}`));
  if (missed.length > 0) process.stdout.write(`\nTargets missed: ${missed.join("; ")}.\n`);
  if (notes.length + skipped.length + errors.length > 0) {
    process.stdout.write("\nNotes:\n");
    for (const n of [...skipped, ...notes]) process.stdout.write(`- ${n}\n`);
    for (const e of errors) process.stdout.write(`- ${e.scenario} could not run: ${e.message}\n`);
  }

  mkdirSync(dirname(argv.out), { recursive: true });
  writeFileSync(
    argv.out,
    JSON.stringify({ date, mode: argv.quick ? "quick" : "full", totalSeconds, machine, busy, scenarios: results, errors, missed }, null, 2) + "\n",
  );
  process.stdout.write(`\nfigures written to ${argv.out}\n`);
  return errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
