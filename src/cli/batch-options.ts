// npm run batch's options, each declared once (the engine: options/engine.ts; entries other commands
// take too: options/shared.ts). The table is checked against the pipeline's BatchSettings: one entry
// per setting, each parse returning its type.
import { type Lookup } from "../contract/fields.js";
import type { LogFormat } from "../log/logger.js";
import { ConfigError, parseBaseUrl, parseLookups, URL_ENV } from "./options/config-values.js";
import type { BatchSettings } from "../pipeline/config.js";
import { DEFAULT_PROBE } from "../plan/plan.js";
import { FETCH_ORDERS, type FetchOrder } from "../plan/sample-order.js";
import { parseMonthlyQuota, parseQuotaPeriod } from "../plan/quota-plan.js";
import { DEFAULT_RETENTION_DAYS, parseRetention } from "../plan/retention.js";
import { DEFAULT_MAX_AGE_DAYS } from "../plan/capacity.js";
import type { Premises } from "../contract/open-data.js";
import { duration, flag, oneOf, option, parseTable, text, toNumber, wholeNumber, wrapped, type OptionSpec, type OptionTable, type RawOf, type ValuesOf } from "./options/engine.js";
import { SHARED_OPTIONS } from "./options/shared.js";

/** A path given empty (`--in ""`, a shell variable unset) is said as such, not as a file named "". */
function nonEmptyPath(raw: string, name: string): string {
  if (raw.trim() === "") throw new ConfigError(`${name} is empty: give a file path, or - for standard input`);
  return raw;
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

export const BATCH_OPTIONS = {
  in: option({ type: "string", required: true, help: "input CSV file, or - for standard input", parse: (raw) => nonEmptyPath(raw!, "--in") }),
  column: option({ type: "string", help: "input column holding postcodes (default: auto-detect)", parse: text }),
  db: SHARED_OPTIONS.db,
  out: SHARED_OPTIONS.out,
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
  providers: SHARED_OPTIONS.providers,
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
  retries: option({ type: "number", default: 5, help: "retries after the first attempt for retryable failures (5xx, a dropped, refused or timed-out connection, a broken or oversized body): a postcode is sent at most 1 + N requests, apart from 429s (which wait as told) and the attempts a recognised API outage took (bounded by --outage-limit)", parse: wholeNumber(0) }),
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
    default: `${DEFAULT_MAX_AGE_DAYS}d`,
    help: "reuse a stored answer younger than this",
    parse: duration,
  }),
  attribution: SHARED_OPTIONS.attribution,
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
    help: "fresh answers re-fetched per lookup to notice a new dataset release: one round a day at most, none when the run's own answers tell; a lookup sent nothing else re-fetches one a day to check its key (0: none, no key check either)",
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
    help: 'requests a quota period per lookup, each product its own ("N", or "broadband=N,mobile=M"; what a postcode costs: docs/api-notes.md#the-quota): plans each night\'s spend',
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
  groupBy: SHARED_OPTIONS.groupBy,
  mobileScale: SHARED_OPTIONS.mobileScale,
  goodRating: SHARED_OPTIONS.goodRating,
  areaFile: SHARED_OPTIONS.areaFile,
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
  uprnColumn: SHARED_OPTIONS.uprnColumn,
  workbookRows: SHARED_OPTIONS.workbookRows,
} satisfies OptionTable<BatchSettings>;

export type BatchOptions = typeof BATCH_OPTIONS;
export type OptionName = keyof BatchOptions;
type KindOf<N extends OptionName> = BatchOptions[N] extends OptionSpec<infer K, unknown> ? K : never;

/** The options as given (command line or code): every one optional but --in. */
export type BatchFlags = { [N in OptionName]?: RawOf<KindOf<N>> } & { in: string };
/** Each option's checked value, as its parse returns it. */
export type OptionValues = ValuesOf<BatchOptions>;

/**
 * Every batch option checked and converted. A value from the environment is named by its variable and
 * never echoed (a swapped URL and key must not print the key).
 */
export function parseOptions(flags: BatchFlags, env: NodeJS.ProcessEnv): OptionValues {
  return parseTable(BATCH_OPTIONS, flags, env);
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
