// Turning flags and environment into a checked configuration. Pure: no I/O but the key file.
import { readFileSync, statSync } from "node:fs";
import { DEFAULT_PROVIDERS, LOOKUPS, parseProviders, type Lookup } from "../spec/fields.js";
import type { LogFormat } from "../log/logger.js";
import { parseDuration } from "./duration.js";
import { DEFAULT_PROBE } from "../plan/plan.js";
import { parseMonthlyQuota } from "../plan/quota-plan.js";

export class ConfigError extends Error {}

export interface BatchFlags {
  in: string;
  column?: string;
  db: string;
  out: string;
  lookups: string;
  baseUrl?: string;
  providers: string;
  concurrency: number;
  rate: number;
  retries: number;
  timeout: number;
  maxAge: string;
  refresh: boolean;
  maxRequests?: number;
  simulate: boolean;
  progress?: boolean;
  logFormat: string;
  quiet: boolean;
  keyFile?: string;
  reports: boolean;
  probe?: number;
  release?: string;
  simulateRelease?: number;
  monthlyQuota?: string;
  quotaResetDay?: number;
  spendAll?: boolean;
}

export interface BatchConfig {
  input: string;
  column: string | undefined;
  dbPath: string;
  outDir: string;
  lookups: Lookup[];
  /** null with --simulate: the simulator's URL is known only once it listens */
  baseUrl: URL | null;
  providers: string[];
  concurrency: number;
  rate: number;
  retries: number;
  timeoutMs: number;
  maxAgeMs: number;
  refresh: boolean;
  maxRequests: number | null;
  simulate: boolean;
  progress: boolean | undefined;
  logFormat: LogFormat;
  quiet: boolean;
  keys: Partial<Record<Lookup, string>>;
  reports: boolean;
  /** --probe: fresh answers re-fetched per lookup to notice a new release */
  probe: number;
  /** --release NAME: the release label of answers that do not name theirs (broadband) */
  release: string | null;
  /** --simulate-release: the dataset release the bundled simulator serves */
  simulateRelease: number;
  /** --monthly-quota: requests per quota period per lookup; null: not planned */
  monthlyQuota: Partial<Record<Lookup, number>> | null;
  /** --quota-reset-day: the day of the month the quota period starts (UTC) */
  quotaResetDay: number;
  /** --spend-all: refreshes may spend all the period has left tonight */
  spendAll: boolean;
  /** what the runs table records: the flags, never a key */
  recordedArgs: Record<string, unknown>;
}

export const ENV = {
  url: "COVERAGE_API_URL",
  key: "COVERAGE_API_KEY",
  broadbandKey: "COVERAGE_BROADBAND_KEY",
  mobileKey: "COVERAGE_MOBILE_KEY",
  monthlyQuota: "COVERAGE_MONTHLY_QUOTA",
} as const;

export function parseLookups(list: string): Lookup[] {
  const items = list
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length === 0) throw new ConfigError("--lookups: name at least one of broadband, mobile");
  for (const i of items)
    if (!(LOOKUPS as readonly string[]).includes(i)) throw new ConfigError(`--lookups: "${i}" is not one of broadband, mobile`);
  return LOOKUPS.filter((l) => items.includes(l));
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--base-url: "${text}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(`--base-url: ${url.protocol} is not http or https`);
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    throw new ConfigError(`--base-url: refusing plain http to ${url.hostname}: the key would travel in clear; use https`);
  if (url.username || url.password) throw new ConfigError("--base-url: credentials in the URL are not allowed");
  if (url.search || url.hash) throw new ConfigError("--base-url: give the base address only, without ?query or #fragment");
  return url;
}

/** Key file: one line with a key for both lookups, or lines `broadband=KEY` / `mobile=KEY`. */
export function parseKeyFile(text: string, path: string): Partial<Record<Lookup, string>> {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith("#"));
  const keys: Partial<Record<Lookup, string>> = {};
  for (const [i, line] of lines.entries()) {
    const m = /^(broadband|mobile|both|\*)\s*[=:]\s*(\S+)$/i.exec(line);
    if (m) {
      const which = m[1]!.toLowerCase();
      if (which === "broadband" || which === "mobile") keys[which] = m[2]!;
      else keys.broadband = keys.mobile = m[2]!;
    } else if (lines.length === 1 && !/\s/.test(line)) {
      keys.broadband = keys.mobile = line;
    } else {
      throw new ConfigError(`--key-file ${path}: line ${i + 1} is neither a key nor "broadband=KEY" / "mobile=KEY"`);
    }
  }
  return keys;
}

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`--${name}: expected a whole number >= ${min}, got ${value}`);
  return value;
}

export function buildConfig(flags: BatchFlags, env: NodeJS.ProcessEnv, warn: (m: string) => void = () => {}): BatchConfig {
  const lookups = parseLookups(flags.lookups);
  let providers: string[];
  try {
    providers = parseProviders(flags.providers ?? DEFAULT_PROVIDERS.join(","));
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  let maxAgeMs: number;
  try {
    maxAgeMs = parseDuration(flags.maxAge);
  } catch (err) {
    throw new ConfigError(`--max-age: ${(err as Error).message}`);
  }
  if (!Number.isFinite(flags.timeout) || flags.timeout <= 0) throw new ConfigError(`--timeout: expected seconds > 0, got ${flags.timeout}`);
  if (!Number.isFinite(flags.rate) || flags.rate <= 0) throw new ConfigError(`--rate: expected requests per minute > 0, got ${flags.rate}`);
  if (flags.logFormat !== "text" && flags.logFormat !== "json") throw new ConfigError(`--log-format: expected text or json, got ${flags.logFormat}`);

  const baseText = flags.baseUrl ?? env[ENV.url];
  let baseUrl: URL | null = null;
  if (flags.simulate) {
    if (flags.baseUrl) throw new ConfigError("--simulate and --base-url cannot be used together");
  } else {
    if (!baseText) throw new ConfigError(`no API address: give --base-url URL or set ${ENV.url} (or use --simulate)`);
    baseUrl = parseBaseUrl(baseText);
  }

  let keys: Partial<Record<Lookup, string>> = {};
  if (flags.keyFile) {
    let text: string;
    try {
      const mode = statSync(flags.keyFile).mode;
      if (mode & 0o077) warn(`--key-file ${flags.keyFile} is readable by other users; chmod 600 it`);
      text = readFileSync(flags.keyFile, "utf8");
    } catch (err) {
      throw new ConfigError(`--key-file ${flags.keyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    keys = parseKeyFile(text, flags.keyFile);
  } else {
    const both = env[ENV.key];
    const broadband = env[ENV.broadbandKey] || both;
    const mobile = env[ENV.mobileKey] || both;
    if (broadband) keys.broadband = broadband;
    if (mobile) keys.mobile = mobile;
  }
  if (!flags.simulate)
    for (const l of lookups)
      if (!keys[l])
        throw new ConfigError(
          `no key for the ${l} lookup: set ${ENV.key} (or ${l === "broadband" ? ENV.broadbandKey : ENV.mobileKey}), or use --key-file PATH`,
        );

  const maxRequests = flags.maxRequests === undefined ? null : positiveInt("max-requests", flags.maxRequests, 0);
  const config: BatchConfig = {
    input: flags.in,
    column: flags.column,
    dbPath: flags.db,
    outDir: flags.out,
    lookups,
    baseUrl,
    providers,
    concurrency: positiveInt("concurrency", flags.concurrency),
    rate: flags.rate,
    retries: positiveInt("retries", flags.retries, 0),
    timeoutMs: Math.round(flags.timeout * 1000),
    maxAgeMs,
    refresh: flags.refresh,
    maxRequests,
    simulate: flags.simulate,
    progress: flags.progress,
    logFormat: flags.logFormat,
    quiet: flags.quiet,
    keys,
    reports: flags.reports,
    probe: flags.probe === undefined ? DEFAULT_PROBE : positiveInt("probe", flags.probe, 0),
    release: releaseLabel(flags.release),
    simulateRelease: flags.simulateRelease === undefined ? 1 : positiveInt("simulate-release", flags.simulateRelease),
    monthlyQuota: monthlyQuota(flags.monthlyQuota ?? env[ENV.monthlyQuota]),
    quotaResetDay: flags.quotaResetDay === undefined ? 1 : resetDay(flags.quotaResetDay),
    spendAll: flags.spendAll ?? false,
    recordedArgs: {},
  };
  config.recordedArgs = {
    in: config.input,
    column: config.column ?? null,
    db: config.dbPath,
    out: config.outDir,
    lookups: config.lookups,
    baseUrl: baseUrl?.href ?? null,
    providers,
    concurrency: config.concurrency,
    rate: config.rate,
    retries: config.retries,
    timeout: flags.timeout,
    maxAge: flags.maxAge,
    refresh: config.refresh,
    maxRequests,
    simulate: config.simulate,
    keySource: flags.keyFile ? "key-file" : "environment",
    probe: config.probe,
    release: config.release,
    monthlyQuota: config.monthlyQuota,
    quotaResetDay: config.quotaResetDay,
    spendAll: config.spendAll,
  };
  return config;
}

/** --release NAME: a short printable label (it names the release in reports and status). */
export function releaseLabel(text: string | undefined): string | null {
  if (text === undefined) return null;
  const name = text.trim();
  if (!/^[\w.:+-]{1,64}$/.test(name)) throw new ConfigError(`--release: "${text.slice(0, 40)}" is not a release name (1-64 letters, digits, . _ : + -)`);
  return name;
}

function monthlyQuota(text: string | undefined): Partial<Record<Lookup, number>> | null {
  if (text === undefined || text.trim() === "") return null;
  try {
    return parseMonthlyQuota(text);
  } catch (err) {
    throw new ConfigError(`--monthly-quota (or ${ENV.monthlyQuota}): ${(err as Error).message}`);
  }
}

/** Days 29-31 do not exist in every month: a period starting on them would drift. */
function resetDay(day: number): number {
  if (!Number.isInteger(day) || day < 1 || day > 28) throw new ConfigError(`--quota-reset-day: expected a day of the month 1-28, got ${day}`);
  return day;
}
