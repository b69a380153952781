// Every command's options, each declared once: flag name, type, default, environment variable, help, and
// how its text becomes a checked value. BATCH_OPTIONS, REPORT_OPTIONS, EXPORT_OPTIONS and STATUS_OPTIONS
// share the entries of options several commands take. The yargs definitions (declareOptions in
// cli/run-cli.ts), the BatchFlags and BatchConfig types (config.ts), the arguments recorded in the runs
// table and the option tables of docs/options.md are all generated from these tables.
// To add an option: add one entry here and one test in test/options.test.ts; run `npm run options-table`.
import { DEFAULT_PROVIDERS, parseProviders, type Lookup } from "../spec/fields.js";
import type { LogFormat } from "../log/logger.js";
import { parseDuration } from "./duration.js";
import { parseGroupBy } from "../report/groups.js";
import { MIN_RUN, Redactor } from "../log/redact.js";
import { ConfigError, parseBaseUrl, parseLookups, URL_ENV } from "./config-values.js";
import { DEFAULT_PROBE } from "../plan/plan.js";
import { FETCH_ORDERS, type FetchOrder } from "../plan/sample-order.js";
import { DEFAULT_WORKBOOK_ROWS, SHEET_MAX_ROWS } from "../report/workbook.js";
import { parseMonthlyQuota, parseQuotaPeriod } from "../plan/quota-plan.js";
import { DEFAULT_RETENTION_DAYS, parseRetention } from "../plan/retention.js";
import { parseAttribution } from "../report/attribution.js";
import type { Premises } from "../spec/open-data.js";
import { RATING_MAX, RATING_MIN } from "../spec/fields.js";
import { MOBILE_SCALE_CHOICES, MOBILE_SCALES, type MobileScale, type MobileScaleChoice } from "../spec/mobile-scales.js";
import { EXPORT_FORMATS, type ExportFormat } from "../export/write-export.js";
import { DEFAULT_KEY } from "../simulator/options.js";
import type { Dialect } from "../spec/types.js";
import { isPostgresUrl, passwordInArgv } from "../store/location.js";

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

function option<K extends OptionKind, T>(spec: OptionSpec<K, T>): OptionSpec<K, T> {
  return spec;
}

/** A number from text or code; `name` is the flag (or variable) the message names. */
export function toNumber(raw: number | string, name: string): number {
  const n = typeof raw === "number" ? raw : /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ConfigError(`${name}: expected a number, got ${JSON.stringify(String(raw))}`);
  return n;
}

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: number | string | undefined, name: string): number => {
    const n = toNumber(raw ?? NaN, name);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ConfigError(`${name}: expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}, got ${n}`);
    return n;
  };
}

function wrapped<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

/** One of a few words, e.g. text or json; the message lists them. */
function oneOf<T extends string>(...choices: T[]) {
  return (raw: string | undefined, name: string): T => {
    if (!(choices as string[]).includes(raw!)) throw new ConfigError(`${name}: expected ${choices.join(" or ")}, got ${JSON.stringify(raw)}`);
    return raw as T;
  };
}

const text = (raw: string | undefined) => raw;
/** "30d", "15m", … → milliseconds */
const duration = (raw: string | undefined, name: string) => wrapped(name, () => parseDuration(raw!));
const flag = (raw: boolean | undefined) => raw === true;

/** A SQLite path, or a PostgreSQL URL without a password (argv is visible to every user). */
function parseDb(raw: string | undefined, name: string): string {
  const refused = isPostgresUrl(raw!) ? passwordInArgv(raw!, name) : null;
  if (refused) throw new ConfigError(refused);
  return raw!;
}

/** --rate when not given: the Basic plan's limit. */
export const DEFAULT_RATE = 100;

/** An http(s) URL for the cron monitor. */
function parsePingUrl(raw: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(`${name}: expected an http or https URL, got ${url.protocol}`);
  return url;
}

/** Where the batch keeps its database; the report, status and export commands read it there too. */
export const DEFAULT_DB = "output/coverage.sqlite";

export const BATCH_OPTIONS = {
  in: option({ type: "string", required: true, help: "input CSV file, or - for standard input", parse: (raw) => raw! }),
  column: option({ type: "string", help: "input column holding postcodes (default: auto-detect)", parse: text }),
  db: option({ type: "string", default: DEFAULT_DB, help: "SQLite database file, or a postgres:// URL (its password in PGPASSWORD or ~/.pgpass)", parse: parseDb }),
  out: option({ type: "string", default: "output", help: "directory for the reports", parse: (raw) => raw! }),
  lookups: option({
    type: "string",
    default: "broadband,mobile",
    help: "which lookups",
    parse: (raw): Lookup[] => parseLookups(raw!),
  }),
  baseUrl: option({
    type: "string",
    env: URL_ENV,
    help: "API base URL; required unless --simulate",
    parse: (raw, name): URL | null => (raw === undefined || raw === "" ? null : parseBaseUrl(raw, name)),
  }),
  providers: option({
    type: "string",
    default: DEFAULT_PROVIDERS.join(","),
    help: "mobile provider prefixes (production uses its own codes)",
    parse: (raw, name): string[] => wrapped(name, () => parseProviders(raw!)),
  }),
  concurrency: option({ type: "number", default: 4, help: "requests in flight per lookup", parse: wholeNumber(1, 1000) }),
  // no declared default, so that --simulate can tell "not given" (unpaced) from --rate 100
  rate: option({
    type: "number",
    help: `requests per minute per lookup, paced client-side (default ${DEFAULT_RATE}, the Basic plan's; with --simulate: unpaced unless given)`,
    parse: (raw, name) => {
      if (raw === undefined) return DEFAULT_RATE;
      const n = toNumber(raw, name);
      if (n <= 0) throw new ConfigError(`${name}: expected requests per minute > 0, got ${n}`);
      return n;
    },
  }),
  retries: option({ type: "number", default: 5, help: "retries after the first attempt for retryable failures", parse: wholeNumber(0) }),
  timeout: option({
    type: "number",
    default: 30,
    help: "seconds per request (1-3600)",
    /** milliseconds */
    parse: (raw, name) => {
      const s = toNumber(raw!, name);
      if (!(s >= 1 && s <= 3600)) throw new ConfigError(`${name}: expected seconds from 1 to 3600, got ${s}`);
      return Math.round(s * 1000);
    },
  }),
  maxAge: option({
    type: "string",
    default: "30d",
    help: "reuse a stored answer younger than this",
    parse: duration,
  }),
  attribution: option({
  type: "string",
  help: "the attribution printed beside the API's data in report.html, the workbook's Summary and summary.csv, in the exact words your licence asks for (default: \"Source: Ofcom\" with the dataset releases; docs/retention.md)",
  parse: (raw, name) => {
    try {
      return parseAttribution(raw, name);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
  },
}),
  retention: option({
    type: "string",
    default: String(DEFAULT_RETENTION_DAYS),
    help: "days an API answer is kept after the API last returned it (Ofcom's terms, clause 4.3.6: a month); expired answers are deleted at the start of every batch and never shown. `none` keeps everything, if your agreement with Ofcom allows it (docs/retention.md)",
    /** milliseconds, or null for none */
    parse: (raw, name) => {
      try {
        return parseRetention(raw, name);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    },
  }),
  refresh: option({ type: "boolean", default: false, help: "fetch even what is fresh", parse: flag }),
  maxRequests: option({
    type: "number",
    help: "stop cleanly after N requests in this run",
    parse: (raw, name) => (raw === undefined ? null : wholeNumber(0)(raw, name)),
  }),
  outageLimit: option({
    type: "string",
    default: "15m",
    help: "how long an API outage may last before the run stops (exit 3; a re-run resumes)",
    parse: duration,
  }),
  probe: option({
    type: "number",
    default: DEFAULT_PROBE,
    help: "fresh answers re-fetched per lookup to notice a new dataset release: one round a day at most, none when the run's own answers tell (0: none)",
    parse: wholeNumber(0),
  }),
  order: option({
    type: "string",
    default: "sample",
    help: "the order new postcodes are fetched in: sample (a random order, seeded once per database, stratified by district and the --group-by input columns, so a partial list is a sample the reports can estimate from) or input (the file's order)",
    parse: oneOf<FetchOrder>(...FETCH_ORDERS),
  }),
  release: option({
    type: "string",
    help: "name the dataset release of broadband answers (default: the date a change is first seen)",
    parse: (raw, name): string | null => {
      if (raw === undefined) return null;
      const label = raw.trim();
      if (!/^[\w.:+-]{1,64}$/.test(label))
        throw new ConfigError(`${name}: "${raw.slice(0, 40)}" is not a release name (1-64 letters, digits, . _ : + -)`);
      return label;
    },
  }),
  monthlyQuota: option({
    type: "string",
    env: "COVERAGE_MONTHLY_QUOTA",
    help: 'requests a month per lookup ("N", or "broadband=N,mobile=M"): plans each night\'s spend',
    parse: (raw, name): Partial<Record<Lookup, number>> | null =>
      raw === undefined || raw.trim() === "" ? null : wrapped(name, () => parseMonthlyQuota(raw)),
  }),
  quotaPeriod: option({
    type: "string",
    default: "month",
    help: "the quota's period: `month`, or a number of days (e.g. 28, the Basic plan's) counted from --quota-start",
    /** days, or null for the month */
    parse: (raw, name) => wrapped(name, () => parseQuotaPeriod(raw ?? "month")),
  }),
  quotaStart: option({
    type: "string",
    help: "with --quota-period DAYS: the first day (YYYY-MM-DD, UTC) of any one period, e.g. when the subscription started",
    /** epoch ms, or null */
    parse: (raw, name): number | null => {
      if (raw === undefined || raw.trim() === "") return null;
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) ? Date.parse(`${raw.trim()}T00:00:00Z`) : NaN;
      if (!Number.isFinite(ms)) throw new ConfigError(`${name}: expected a date YYYY-MM-DD, got ${JSON.stringify(raw.slice(0, 20))}`);
      return ms;
    },
  }),
  // Days 29-31 do not exist in every month: a period starting on them would drift.
  quotaResetDay: option({ type: "number", default: 1, help: "day of the month (UTC, 1-28) the quota period starts", parse: wholeNumber(1, 28) }),
  spendAll: option({
    type: "boolean",
    default: false,
    help: "with --monthly-quota: refreshes may spend all that is left tonight, not an even share",
    parse: flag,
  }),
  simulate: option({ type: "boolean", default: false, help: "use the bundled simulator in-process (run marked simulated)", parse: flag }),
  simulateRelease: option({ type: "number", default: 1, help: "with --simulate: the simulator's dataset release", parse: wholeNumber(1) }),
  keyFile: option({
    type: "string",
    help: "file with the API key (or broadband=KEY / mobile=KEY lines)",
    record: false,
    parse: text,
  }),
  progress: option({
    type: "boolean",
    help: "progress line (default: on a terminal); --no-progress for none",
    record: false,
    parse: (raw) => raw,
  }),
  logFormat: option({
    type: "string",
    default: "text",
    help: "text, or json: one object per line",
    record: false,
    parse: oneOf<LogFormat>("text", "json"),
  }),
  quiet: option({ type: "boolean", default: false, help: "errors, security warnings and the final summary only", record: false, parse: flag }),
  verbose: option({ type: "boolean", default: false, help: "log every retry", record: false, parse: flag }),
  reports: option({ type: "boolean", default: true, hidden: true, record: false, help: "write the reports", parse: (raw) => raw !== false }),
  groupBy: option({
    type: "string",
    help: "figures per group in groups.csv: input or --area-file columns, area, district, sector (default area,district; none for no groups)",
    parse: (raw): string[] | undefined => (raw === undefined ? undefined : parseGroupBy(raw)),
  }),
  mobileScale: option({
    type: "string",
    default: "auto",
    help: "the mobile rating scale the reports read: auto (a release with any rating 1 or 2 is legacy, otherwise current), current (Ofcom's 0/3/4: None, Limited, Likely; good is 4) or legacy (0-4: Clear ... Enhanced; good is 3)",
    parse: oneOf<MobileScaleChoice>(...MOBILE_SCALE_CHOICES),
  }),
  goodRating: option({
    type: "number",
    help: `mobile ratings at or above this are good coverage (${RATING_MIN + 1}-${RATING_MAX}; default the scale's own: 4 Likely on the current scale, 3 Green on the legacy one)`,
    // the range is the report's own check (a ReportError naming it); here only the form
    parse: (raw, name): number | undefined => {
      if (raw === undefined) return undefined;
      if (!/^\d+$/.test(String(raw))) throw new ConfigError(`${name}: expected a whole number, got ${JSON.stringify(String(raw))}`);
      return Number(raw);
    },
  }),
  areaFile: option({
    type: "string",
    help: "CSV of postcodes and their areas (e.g. an ONS postcode directory extract) whose columns --group-by can name and whose lat/long place them on the map",
    parse: text,
  }),
  openData: option({
    type: "string",
    help: "Ofcom's open postcode data (the zip as downloaded, a folder or one CSV): imported once per release; a first figure for every postcode, new multi-band postcodes first (docs/open-data.md)",
    parse: (raw): string | null => (raw === undefined || raw.trim() === "" ? null : raw.trim()),
  }),
  openDataPremises: option({
    type: "string",
    default: "all",
    help: "with --open-data: whose shares the reports and the planner use, all premises or residential (both are imported)",
    parse: oneOf<Premises>("all", "residential"),
  }),
  pingUrl: option({
    type: "string",
    help: "cron monitor to ping (healthchecks.io style): URL/start when the night begins, URL/<exit code> at its end with the log's last lines; a monitor that is down never fails the night",
    record: false,
    parse: (raw, name): URL | null => (raw === undefined || raw === "" ? null : parsePingUrl(raw, name)),
  }),
  metricsFile: option({
    type: "string",
    help: "write the night's figures here for Prometheus (node_exporter's textfile format, written atomically; name it *.prom in the collector's folder)",
    record: false,
    parse: (raw): string | null => (raw === undefined || raw === "" ? null : raw),
  }),
  uprnColumn: option({ type: "string", help: "input column holding a UPRN: enriched.csv and the workbook give that property's own figures", parse: text }),
  workbookRows: option({
    type: "number",
    default: DEFAULT_WORKBOOK_ROWS,
    help: "rows a sheet of coverage.xlsx may hold (Your rows, Postcodes, Broadband, Mobile); a longer one holds a note naming its CSV and Parquet export instead",
    parse: wholeNumber(0, SHEET_MAX_ROWS),
  }),
};

/** --run ID (report, export): a run id, as a number. */
const RUN_OPTION = option({
  type: "string",
  help: "this run's postcodes instead of the last run's (an id from npm run status)",
  parse: (raw, name): number | undefined => {
    if (raw === undefined) return undefined;
    if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ConfigError(`${name}: "${raw}" is not a run id (a whole number; npm run status lists them)`);
    return Number(raw);
  },
});
const ALL_OPTION = option({ type: "boolean", help: "every stored postcode instead", parse: (raw) => raw === true });

/** npm run report: rewrites the report set from the database. */
export const REPORT_OPTIONS = {
  db: BATCH_OPTIONS.db,
  out: BATCH_OPTIONS.out,
  run: RUN_OPTION,
  all: ALL_OPTION,
  bom: option({ type: "boolean", default: true, help: "start each CSV with a UTF-8 BOM (--no-bom drops it)", parse: (raw) => raw !== false }),
  since: option({
    type: "string",
    help: "changes.csv: compare with the answers as they were at this run id or date (default: each answer's previous version)",
    parse: text,
  }),
  mobileScale: BATCH_OPTIONS.mobileScale,
  goodRating: BATCH_OPTIONS.goodRating,
  groupBy: BATCH_OPTIONS.groupBy,
  areaFile: BATCH_OPTIONS.areaFile,
  uprnColumn: BATCH_OPTIONS.uprnColumn,
  workbookRows: BATCH_OPTIONS.workbookRows,
  attribution: BATCH_OPTIONS.attribution,
};

/** npm run export: the stored answers as Parquet or CSV. */
export const EXPORT_OPTIONS = {
  db: BATCH_OPTIONS.db,
  out: option({ type: "string", required: true, help: "directory for the export", parse: (raw) => raw! }),
  format: option({
    type: "string",
    default: "parquet",
    help: EXPORT_FORMATS.join(" or "),
    parse: (raw, name): ExportFormat => {
      if (!(EXPORT_FORMATS as readonly string[]).includes(raw!)) throw new ConfigError(`${name}: "${raw}" is not one of ${EXPORT_FORMATS.join(", ")}`);
      return raw as ExportFormat;
    },
  }),
  run: RUN_OPTION,
  all: ALL_OPTION,
  areaFile: {
    ...BATCH_OPTIONS.areaFile,
    help: "CSV of postcodes with lat and long columns (e.g. an ONS postcode directory extract): the postcodes table's latitude and longitude",
  },
};

/** npm run status: the last runs and what the database holds. */
export const STATUS_OPTIONS = {
  db: BATCH_OPTIONS.db,
  runs: option({
    type: "number",
    default: 10,
    help: "how many recent runs to list",
    parse: (raw, name): number => {
      if (!/^[1-9]\d{0,5}$/.test(String(raw))) throw new ConfigError(`${name}: expected a whole number >= 1, got ${JSON.stringify(String(raw))}`);
      return Number(raw);
    },
  }),
  json: option({ type: "boolean", default: false, help: "print JSON", parse: flag }),
};

/** A number, or undefined when not given: the simulator checks its range and names the flag. */
const optionalNumber = (raw: number | string | undefined, name: string): number | undefined => (raw === undefined ? undefined : toNumber(raw, name));
const givenNumber = (raw: number | string | undefined, name: string): number => toNumber(raw!, name);
/** A share of answers from 0 to 1 (the simulator checks the range). */
const rate = (what: string) => option({ type: "number", default: 0, help: `share of ${what}`, parse: givenNumber });

/** npm run simulate: serves the simulated API. */
export const SIMULATE_OPTIONS = {
  port: option({ type: "number", default: 8787, help: "port; 0 picks a free one", parse: givenNumber }),
  host: option({ type: "string", default: "127.0.0.1", help: "address to listen on", parse: (raw) => raw! }),
  seed: option({ type: "string", default: "1", help: "dataset and fault seed", parse: (raw) => raw! }),
  release: option({
    type: "number",
    default: 1,
    help: "dataset release: each one after 1 changes about a tenth of postcodes and the mobile DBName",
    parse: givenNumber,
  }),
  mobileScale: option({
    type: "string",
    default: "current",
    help: "the mobile rating scale served: current (0/3/4: None, Limited, Likely, as the service runs today) or legacy (0-4: Clear, Red, Amber, Green, Enhanced)",
    parse: oneOf<MobileScale>(...MOBILE_SCALES),
  }),
  dialect: option({
    type: "string",
    default: "live",
    help: "live: as production answers; spec: as documented",
    parse: oneOf<Dialect>("live", "spec"),
  }),
  key: option({ type: "string", default: DEFAULT_KEY, help: "subscription key required (both lookups unless --mobile-key)", parse: (raw) => raw! }),
  mobileKey: option({ type: "string", help: "separate key for the mobile lookup", parse: text }),
  providers: { ...BATCH_OPTIONS.providers, help: "mobile provider prefixes" },
  rateLimit: option({ type: "number", help: "requests per minute per key and lookup (default: no limit)", parse: optionalNumber }),
  rateWindowMs: option({ type: "number", default: 60_000, hidden: true, help: "the rate limit's window", parse: givenNumber }),
  quota: option({ type: "number", help: "requests per key and lookup before 403 (default: no quota)", parse: optionalNumber }),
  failRate: rate("answers that are 500"),
  unavailableRate: rate("answers that are 503"),
  latency: option({ type: "number", default: 0, help: "ms added to every backend answer", parse: givenNumber }),
  jitter: option({ type: "number", default: 0, help: "up to this many ms more, uniform", parse: givenNumber }),
  stallRate: rate("requests never answered"),
  resetRate: rate("answers cut off mid-body"),
  malformedRate: rate("answers with a broken body"),
  closed: option({
    type: "string",
    help: "fault mode: products that have closed (broadband, mobile or both): the gateway answers their paths 404 with its own body",
    parse: (raw, name): Lookup[] => (raw === undefined || raw.trim() === "" ? [] : wrapped(name, () => parseLookups(raw))),
  }),
  publishOpenData: option({
    type: "string",
    help: "write the simulator's open data for the postcodes of --postcodes into this folder (Ofcom's layout), then exit",
    parse: text,
  }),
  postcodes: option({ type: "string", help: "with --publish-open-data: a CSV of postcodes (as the batch reads its input)", parse: text }),
  areaFileFor: option({
    type: "string",
    help: "print an area file (ONS directory columns pcds, lat, long) with simulated coordinates for the postcodes of this CSV, and exit",
    parse: text,
  }),
};

/** The commands whose options docs/options.md lists, in its order. */
export const COMMAND_OPTIONS = {
  batch: BATCH_OPTIONS,
  report: REPORT_OPTIONS,
  export: EXPORT_OPTIONS,
  status: STATUS_OPTIONS,
  simulate: SIMULATE_OPTIONS,
};

/** A table's options as given (command line or code). */
export type FlagsOf<T> = { [N in keyof T]?: T[N] extends OptionSpec<infer K, unknown> ? RawOf<K> : never };
/** A table's checked values, as each parse returns them. */
export type ValuesOf<T> = { [N in keyof T]: T[N] extends { parse: (...args: never[]) => infer V } ? V : never };

export type BatchOptions = typeof BATCH_OPTIONS;
export type OptionName = keyof BatchOptions;
type KindOf<N extends OptionName> = BatchOptions[N] extends OptionSpec<infer K, unknown> ? K : never;

/** The options as given (command line or code): every one optional but --in. */
export type BatchFlags = { [N in OptionName]?: RawOf<KindOf<N>> } & { in: string };
/** Each option's checked value, as its parse returns it. */
export type OptionValues = ValuesOf<BatchOptions>;

/** camelCase name → --kebab-case flag. */
export function flagName(name: string): string {
  return "--" + name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/**
 * Every batch option checked and converted. A value from the environment is named by its variable and
 * never echoed (a swapped URL and key must not print the key).
 */
export function parseOptions(flags: BatchFlags, env: NodeJS.ProcessEnv): OptionValues {
  return parseTable(BATCH_OPTIONS, flags, env);
}

/** A table's options checked and converted, as parseOptions does for the batch's. */
export function parseTable<T extends object>(table: T, flags: FlagsOf<T>, env: NodeJS.ProcessEnv = {}): ValuesOf<T> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table) as [string, OptionSpec][]) {
    let raw = (flags as Record<string, unknown>)[name];
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

/** What the runs table records: each recorded option's checked value; never a key. */
export function recordedArgs(values: OptionValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(BATCH_OPTIONS) as [OptionName, OptionSpec][]) {
    if (spec.record === false) continue;
    const v = values[name];
    out[name] = v instanceof URL ? v.href : (v ?? null);
  }
  return out;
}

/** The option tables for docs/options.md, one per command (`npm run options-table` writes it; a test checks it is current). */
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
    "Generated from `src/pipeline/options.ts` by `npm run options-table`; do not edit by hand. Options several",
    "commands take (`--db`, `--run`, ...) are declared once and mean the same in each.",
    "",
    ...Object.entries(COMMAND_OPTIONS).flatMap(([command, table]) => section(command, table)),
  ].join("\n");
}
