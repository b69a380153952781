// What the commands share (batch, report, status, export, simulate, options-table): yargs set up
// the same way, --help and --version that print and exit 0, unknown options refused with a
// did-you-mean, every error one line (JSON with --log-format json), and the exit code set once.
import yargs, { type Argv, type ArgumentsCamelCase } from "yargs";
import { hideBin } from "yargs/helpers";
import { ConfigError } from "./options/config-values.js";
import { flagName, type FlagsOf, type OptionSpec } from "./options/engine.js";
import { isFileSystemError, oneLine, UserError } from "../errors.js";
import { toolVersion } from "../contract/version.js";

export { ConfigError as UsageError } from "./options/config-values.js";

/** A one-line error about the environment (a missing database), printed without the --help hint (a UserError). */
export class CliError extends UserError {}

/** The yargs definitions of an option table (src/cli/*-options.ts). Numbers get no yargs type, so
 *  "abc" reaches the declaration's check as typed (yargs' number type would turn it into NaN). */
export function declareOptions<T extends object>(y: Argv, table: T): Argv<FlagsOf<T>> {
  for (const [name, spec] of Object.entries(table) as [string, OptionSpec][]) {
    y = y.option(flagName(name).slice(2), {
      ...(spec.type === "number" ? {} : { type: spec.type }),
      // nargs 1: without it yargs reads a lone "-" as a positional argument, not as the value of --in
      ...(spec.type === "boolean" ? {} : { nargs: 1 }),
      describe: spec.help + (spec.env ? ` (env ${spec.env})` : ""),
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(spec.required ? { demandOption: true } : {}),
      ...(spec.hidden ? { hidden: true } : {}),
    });
  }
  return y as Argv<FlagsOf<T>>;
}

export interface CliSpec<A> {
  /** npm script name: batch, report, status, export, simulate, options-table */
  name: string;
  usage: string;
  /** one or two command lines with what they do, shown at the end of --help ($0 is the command as called) */
  examples: readonly (readonly [command: string, description: string])[];
  epilogue?: string;
  /** declares the command's options on the parser */
  options: (y: Argv) => Argv<A>;
  /** runs the command; returns the exit code. Throw UsageError (ConfigError) for a bad flag, another
   *  UserError for anything else the user can fix: both print as one line without a stack. */
  run: (argv: ArgumentsCamelCase<A>) => Promise<number> | number;
}

interface CliOutput {
  /** one error line in the chosen format; it ends the command, so it says why (stopReason) */
  error(message: string, stopReason: "config" | "error" | "unexpected"): void;
}

/** How the user called the command, for --help and hints: `npm run batch --` from a clone, `postcode-coverage batch` installed. */
let commandName: ((name: string) => string) | undefined;
export function setCommandName(name: string): void {
  commandName = () => name;
}
const calledAs = (name: string) => commandName?.(name) ?? `npm run ${name} --`;

/** The examples --help ends with: each command line whole (a user copies it), its meaning indented below. */
export function examplesText(examples: CliSpec<unknown>["examples"], command: string): string {
  return "\nExamples:\n" + examples.map(([line, description]) => `  ${line.replace("$0", command)}\n      ${description}\n`).join("");
}

export function runCli<A>(spec: CliSpec<A>, args: readonly string[] = hideBin(process.argv)): void {
  // A parent that dies (or stops reading) closes our output: writing then fails with EPIPE. The run
  // keeps its guarantees instead of crashing half-way: it finishes and records itself in the database.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  const json = args.some((a, i) => a === "--log-format=json" || (a === "--log-format" && args[i + 1] === "json"));
  const out: CliOutput = {
    error: (message, stopReason) => process.stderr.write(errorLine(message, json, stopReason) + "\n"),
  };
  const hint = `(${calledAs(spec.name)} --help lists the options)`;
  main(spec, args).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      const reason = failureStopReason(err);
      if (reason === "config") out.error(`${(err as Error).message} ${hint}`, reason);
      else if (reason === "error") out.error((err as Error).message, reason);
      // one line even for a bug: the message, never a stack trace (NODE_DEBUG-style detail is not for cron logs)
      else out.error(`unexpected failure: ${err instanceof Error ? err.message : String(err)}`, reason);
      process.exitCode = 1;
    },
  );
}

/** The stop reason of a command that ends by throwing: a bad flag, something else its user can fix, or a bug. */
export function failureStopReason(err: unknown): "config" | "error" | "unexpected" {
  if (err instanceof ConfigError) return "config";
  return err instanceof UserError || isFileSystemError(err) ? "error" : "unexpected";
}

async function main<A>(spec: CliSpec<A>, args: readonly string[]): Promise<number> {
  const parser = spec
    .options(
      yargs([...args])
        .scriptName(calledAs(spec.name))
        .usage(spec.usage)
        .version(false)
        .option("version", { type: "boolean", describe: "print the version and exit" })
        .help("help")
        .alias("help", "h"),
    )
    .epilogue(spec.epilogue ?? "")
    .strict()
    .exitProcess(false)
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .fail((msg, err) => {
      throw new ConfigError(plainYargsMessage(msg ?? err?.message ?? "invalid arguments"));
    });
  // --help and --version win over everything else on the line, and never run the command.
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write((await parser.getHelp()) + "\n" + examplesText(spec.examples, calledAs(spec.name)));
    return 0;
  }
  if (args.includes("--version")) {
    process.stdout.write(toolVersion() + "\n");
    return 0;
  }
  const unknown = unknownOption(args, knownOptions(parser));
  if (unknown) throw new ConfigError(unknown);
  const argv = (await parser.parse()) as ArgumentsCamelCase<A>;
  return spec.run(argv);
}

/** yargs' own messages, in the words and flag spelling of the others. */
function plainYargsMessage(message: string): string {
  const missing = /^Missing required arguments?: (.+)$/.exec(message);
  if (missing) return `missing ${missing[1]!.split(", ").map((n) => `--${n}`).join(", ")}`;
  const extra = /^Unknown arguments?: (.+)$/.exec(message);
  if (extra) return `unexpected argument ${extra[1]} (options start with --, e.g. --in FILE)`;
  return message;
}

/** The error that ends a command; in JSON with what every run's last line carries (event, exitCode, stopReason). */
export function errorLine(message: string, json: boolean, stopReason: string): string {
  const line = oneLine(message);
  return json ? JSON.stringify({ time: new Date().toISOString(), level: "error", message: line, event: "refused", exitCode: 1, stopReason }) : `error: ${line}`;
}

/** Every long option the parser knows, as typed (--kebab-case), aliases included. */
function knownOptions(parser: Argv): string[] {
  const options = (parser as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }).getOptions();
  const names = new Set<string>(Object.keys(options.key));
  for (const [k, aliases] of Object.entries(options.alias)) {
    names.add(k);
    for (const a of aliases) names.add(a);
  }
  return [...names].filter((n) => !/[A-Z]/.test(n));
}

/** "unknown option --inn; did you mean --in?" for the first option the command does not have, else null. */
export function unknownOption(args: readonly string[], known: readonly string[]): string | null {
  for (const arg of args) {
    if (arg === "--") break;
    const m = /^--?(?:no-)?([^=]+)/.exec(arg);
    if (!m || /^-\d/.test(arg) || arg === "-") continue;
    const name = m[1]!;
    // one dash takes single letters only: -in would be -i -n to yargs, never --in
    const oneDashLong = !arg.startsWith("--") && name.length > 1;
    if (!oneDashLong && (known.includes(name) || (arg.startsWith("--no-") && known.includes(`no-${name}`)))) continue;
    const best = oneDashLong && known.includes(name) ? name : closest(name, known);
    return `unknown option ${arg.split("=")[0]}${best ? `; did you mean --${best}?` : oneDashLong ? " (long options start with --)" : ""}`;
  }
  return null;
}

function closest(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    if (k.length < 2) continue;
    const d = editDistance(name, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best !== null && bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : null;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
