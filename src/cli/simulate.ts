// npm run simulate -- [--port 8787] [options]: serve the coverage API simulator until SIGINT/SIGTERM.
// First line on stdout is `listening <url>`, for scripts that start it with --port 0.
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_KEY, simulatedAreaFile, simulatedOpenDataArchive, startSimulator, type Simulator } from "../simulator/index.js";
import { openInput } from "../input/read-input.js";
import { parentPid, processAlive } from "../store/process-identity.js";
import { declareOptions, runCli, UsageError } from "./run-cli.js";
import { parseTable } from "./options/engine.js";
import { SIMULATE_OPTIONS } from "./simulate-options.js";

/** Option checks name the option as code spells it; a user typed the flag. */
const FLAGS: Record<string, string> = {
  port: "--port",
  release: "--release",
  mobileScale: "--mobile-scale",
  dialect: "--dialect",
  key: "--key",
  mobileKey: "--mobile-key",
  providers: "--providers",
  rateLimit: "--rate-limit",
  quota: "--quota",
  failRate: "--fail-rate",
  unavailableRate: "--unavailable-rate",
  stallRate: "--stall-rate",
  resetRate: "--reset-rate",
  malformedRate: "--malformed-rate",
  latencyMs: "--latency",
  jitterMs: "--jitter",
};

runCli({
  name: "simulate",
  usage: "$0 [options]\n\nServes a simulated coverage API (broadband and mobile lookups, with its gateway) over HTTP.",
  examples: [
    ["$0 --port 8080", "serve the simulated API on http://127.0.0.1:8080"],
    ["$0 --port 8080 --mobile-scale legacy", "the same, rating mobile coverage on the older 0-4 scale (Clear to Enhanced)"],
  ],
  options: (y) => declareOptions(y, SIMULATE_OPTIONS),
  run: async (cli) => {
    const argv = parseTable(SIMULATE_OPTIONS, cli);
    if (argv.publishOpenData !== undefined) return publishOpenData(argv.publishOpenData, argv.postcodes, argv.seed, argv.release, argv.providers);
    if (argv.areaFileFor !== undefined) {
      process.stdout.write(simulatedAreaFile(await inputPostcodes(argv.areaFileFor)).join("\r\n") + "\r\n");
      return 0;
    }
    let simulator: Simulator;
    try {
      simulator = await startSimulator({
        port: argv.port,
        host: argv.host,
        seed: argv.seed,
        release: argv.release,
        mobileScale: argv.mobileScale,
        dialect: argv.dialect,
        key: argv.key,
        mobileKey: argv.mobileKey,
        providers: argv.providers,
        rateLimit: argv.rateLimit,
        rateWindowMs: argv.rateWindowMs,
        quota: argv.quota,
        failRate: argv.failRate,
        unavailableRate: argv.unavailableRate,
        latencyMs: argv.latency,
        jitterMs: argv.jitter,
        stallRate: argv.stallRate,
        resetRate: argv.resetRate,
        malformedRate: argv.malformedRate,
        closed: argv.closed,
      });
      console.log(`listening ${simulator.url}`);
      // Never echo the keys: say only whether they are the default.
      console.log(
        `dialect ${argv.dialect}, seed ${argv.seed}, release ${argv.release}, mobile scale ${argv.mobileScale}, key ${argv.key === DEFAULT_KEY ? "default" : "custom"}` +
          `${argv.mobileKey ? ", separate mobile key" : ""}; Ctrl-C stops`,
      );
    } catch (err) {
      // The simulator's checks name options as code spells them; a user typed the flag.
      throw new UsageError((err as Error).message.replace(/^(\w+)(?= )/, (name) => FLAGS[name] ?? name));
    }
    await untilSignal(simulator);
    return 0;
  },
});

/** The simulator's open data for a list of postcodes: written only when its bytes changed, so a batch does not import it again. */
async function publishOpenData(dir: string, postcodesCsv: string | undefined, seed: string, release: number, providers: string[]): Promise<number> {
  if (postcodesCsv === undefined) throw new UsageError("--publish-open-data needs --postcodes CSV: the postcodes to publish figures for");
  const postcodes = await inputPostcodes(postcodesCsv);
  const archive = simulatedOpenDataArchive(seed, postcodes, release, providers);
  const path = join(dir, archive.name);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path) || !Buffer.from(archive.bytes).equals(readFileSync(path))) writeFileSync(path, archive.bytes);
  console.log(`open data of ${postcodes.size} postcodes (simulated, release ${release}): ${path}`);
  return 0;
}

/** The valid postcodes of an input CSV, each once, in input order. */
async function inputPostcodes(path: string): Promise<Set<string>> {
  const input = await openInput(createReadStream(path), { source: path });
  const postcodes = new Set<string>();
  for await (const row of input.rows) if (row.postcode.ok) postcodes.add(row.postcode.compact);
  return postcodes;
}

/** Serves until a signal, or until the process that started it exits. */
function untilSignal(simulator: Simulator): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      stopWatching();
      void simulator.close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    const stopWatching = whenStarterExits(() => {
      console.error("the process that started the simulator exited: stopping");
      stop();
    });
  });
}

/**
 * Calls `gone` once the parent exits, or (started by an npm script: npm, then its shell) the
 * grandparent. A killed npm does not pass the signal on, and an orphaned simulator would keep
 * its port. Polled each second on a timer that keeps nothing alive.
 */
function whenStarterExits(gone: () => void, everyMs = 1_000): () => void {
  const parent = process.ppid;
  const starters = [parent];
  if (process.env.npm_lifecycle_event) {
    const grandparent = parentPid(parent);
    if (grandparent !== null && grandparent > 1) starters.push(grandparent);
  }
  const timer = setInterval(() => {
    if (process.ppid === parent && starters.every((pid) => processAlive(pid))) return;
    clearInterval(timer);
    gone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
