// The option engine: how an option is declared (OptionSpec), the parsers tables share, and how a
// table's flags and environment become checked values. Every command's table sits beside its command
// (src/cli/*-options.ts; entries several commands take in shared.ts). The yargs definitions
// (declareOptions in cli/run-cli.ts), the flags and values types, the arguments recorded in the runs
// table and the option tables of docs/options.md are all generated from these tables.
// To add an option: add one entry to its command's table and one test in test/options.test.ts; run
// `npm run options-table`.
import { MIN_RUN, Redactor } from "../../log/redact.js";
import { ConfigError } from "./config-values.js";
import { parseDuration } from "./duration.js";

export type OptionKind = "string" | "number" | "boolean";
/** What a caller may pass: numbers arrive as text from the command line, as numbers from code. */
export type RawOf<K extends OptionKind> = K extends "boolean" ? boolean : K extends "number" ? number | string : string;

export interface OptionSpec<K extends OptionKind = OptionKind, T = unknown> {
  type: K;
  help: string;
  /** the value when neither the flag nor its environment variable is given */
  default?: RawOf<K>;
  /** read when the flag is absent; errors then name the variable and never echo its value */
  env?: string;
  required?: boolean;
  /** for tests and benchmarks only: not in --help or the option table */
  hidden?: boolean;
  /** false: not written to the runs table (log and display settings) */
  record?: boolean;
  /** raw value (after the default) to the configuration value; throws ConfigError naming `name` */
  parse: (raw: RawOf<K> | undefined, name: string) => T;
}

/** A table whose checked values are V's: one entry per field of V, each parse returning that field's type. */
export type OptionTable<V> = { [N in keyof V]-?: { [K in OptionKind]: OptionSpec<K, V[N]> }[OptionKind] };

export function option<K extends OptionKind, T>(spec: OptionSpec<K, T>): OptionSpec<K, T> {
  return spec;
}

/** A number from text or code; `name` is the flag (or variable) the message names. */
export function toNumber(raw: number | string, name: string): number {
  const n = typeof raw === "number" ? raw : /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ConfigError(`${name}: expected a number, got ${JSON.stringify(String(raw))}`);
  return n;
}

export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: number | string | undefined, name: string): number => {
    const n = toNumber(raw ?? NaN, name);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ConfigError(`${name}: expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}, got ${n}`);
    return n;
  };
}

export function wrapped<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

/** One of a few words, e.g. text or json; the message lists them. */
export function oneOf<T extends string>(...choices: T[]) {
  return (raw: string | undefined, name: string): T => {
    if (!(choices as string[]).includes(raw!)) throw new ConfigError(`${name}: expected ${choices.join(" or ")}, got ${JSON.stringify(raw)}`);
    return raw as T;
  };
}

export const text = (raw: string | undefined) => raw;
/** "30d", "15m", … → milliseconds */
export const duration = (raw: string | undefined, name: string) => wrapped(name, () => parseDuration(raw!));
export const flag = (raw: boolean | undefined) => raw === true;

/** A table's options as given (command line or code). */
export type FlagsOf<T> = { [N in keyof T]?: T[N] extends OptionSpec<infer K, unknown> ? RawOf<K> : never };
/** A table's checked values, as each parse returns them. */
export type ValuesOf<T> = { [N in keyof T]: T[N] extends { parse: (...args: never[]) => infer V } ? V : never };

/** camelCase name → --kebab-case flag. */
export function flagName(name: string): string {
  return "--" + name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/**
 * Why a flag given more than once is refused, else null. yargs turns a repeated flag into an array;
 * every option takes one value, and which of two a user meant is not ours to guess.
 */
export function repeatedFlag(name: string, raw: unknown): string | null {
  return Array.isArray(raw) ? `${flagName(name)} given ${raw.length} times; give it once` : null;
}

/**
 * A table's options checked and converted. A value from the environment is named by its variable and
 * never echoed (a swapped URL and key must not print the key).
 */
export function parseTable<T extends object>(table: T, flags: FlagsOf<T>, env: NodeJS.ProcessEnv = {}): ValuesOf<T> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table) as [string, OptionSpec][]) {
    let raw = (flags as Record<string, unknown>)[name];
    const repeated = repeatedFlag(name, raw);
    if (repeated) throw new ConfigError(repeated);
    let label = flagName(name);
    if ((raw === undefined || raw === "") && spec.env && env[spec.env]) {
      raw = env[spec.env];
      label = spec.env;
    }
    if (raw === undefined) raw = spec.default;
    if (raw === undefined && spec.required) throw new ConfigError(`${label} is required`);
    try {
      values[name] = spec.parse(raw as never, label);
    } catch (err) {
      if (label !== flagName(name) && err instanceof ConfigError)
        throw new ConfigError(`${label}: not a valid value for ${flagName(name)}: ${withoutValue(err.message, label, String(raw))} (value not shown)`);
      throw err;
    }
  }
  return values as ValuesOf<T>;
}

/**
 * Why a value from the environment was refused, without the value: the parser's reason with the
 * value (quoted or not) and every 6-character piece of it masked, so a key swapped into the
 * wrong variable is never printed.
 */
function withoutValue(message: string, label: string, raw: string): string {
  const reason = message.startsWith(`${label}: `) ? message.slice(label.length + 2) : message;
  const quoted = reason.split(JSON.stringify(raw)).join("***").split(`"${raw.trim()}"`).join("***");
  const whole = raw.trim() === "" ? quoted : quoted.split(raw.trim()).join("***");
  return new Redactor([raw.trim()].filter((r) => r.length >= MIN_RUN)).redact(whole);
}
