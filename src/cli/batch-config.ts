// Turning the batch's flags and environment into a checked configuration. Each option is declared once
// in batch-options.ts; what is checked here is what spans options: the API address, the keys.
import { readFileSync, statSync } from "node:fs";
import type { Lookup } from "../contract/fields.js";
import { inWords, LOOKUP_LIST, LOOKUP_SPECS } from "../contract/lookups.js";
import { ConfigError, checkKeyCharacters, parseKeyFile, URL_ENV } from "./options/config-values.js";
import type { BatchConfig } from "../pipeline/config.js";
import { maxAgeBeyondRetention } from "../plan/retention.js";
import { parseOptions, recordedArgs, type BatchFlags } from "./batch-options.js";

export type { BatchFlags } from "./batch-options.js";

export const ENV = {
  url: URL_ENV,
  key: "COVERAGE_API_KEY",
  broadbandKey: LOOKUP_SPECS.broadband.keyEnv,
  mobileKey: LOOKUP_SPECS.mobile.keyEnv,
} as const;

/** --simulate's pace unless --rate is given: 1,000 requests a second per lookup, in effect unpaced. */
export const SIMULATED_RATE = 60_000;

/** `security` receives warnings that must reach the user even with --quiet. */
export function buildConfig(flags: BatchFlags, env: NodeJS.ProcessEnv, security: (m: string) => void = () => {}): BatchConfig {
  // --simulate uses its own API: an address in the environment is not even read
  const values = parseOptions(flags, flags.simulate ? { ...env, [ENV.url]: undefined } : env);
  const beyond = maxAgeBeyondRetention(values.maxAge, values.retention);
  if (beyond) throw new ConfigError(beyond);
  if (values.quotaPeriod !== null && values.quotaStart === null)
    throw new ConfigError(`--quota-period ${values.quotaPeriod} needs --quota-start YYYY-MM-DD: the first day of one of its periods (the gateway's quota 403 says when the current one ends)`);
  if (values.simulate) {
    if (flags.baseUrl) throw new ConfigError("--simulate and --base-url cannot be used together");
    values.baseUrl = null;
    // the bundled simulator has no rate limit: pacing it at the real API's would only make a trial slow
    if (flags.rate === undefined) values.rate = SIMULATED_RATE;
  } else if (values.baseUrl === null) {
    throw new ConfigError(`no API address: give --base-url URL or set ${ENV.url} (or use --simulate)`);
  }
  const keys = values.keyFile ? readKeyFile(values.keyFile, security) : keysFromEnv(env);
  const keyless = values.simulate ? [] : values.lookups.filter((l) => !keys[l]);
  if (keyless.length > 0) throw new ConfigError(missingKeysMessage(keyless));
  return { ...values, keys, recordedArgs: { ...recordedArgs(values), keySource: values.keyFile ? "key-file" : "environment" } };
}

/** Names every lookup without a key, and every variable that would give it one. */
export function missingKeysMessage(keyless: readonly Lookup[]): string {
  const lookups = keyless.length === 1 ? `the ${keyless[0]} lookup` : `the ${inWords(keyless)} lookups`;
  return `no key for ${lookups}: set ${ENV.key} (or ${inWords(keyless.map((l) => LOOKUP_SPECS[l].keyEnv))}), or use --key-file PATH`;
}

function readKeyFile(path: string, security: (m: string) => void): Partial<Record<Lookup, string>> {
  let text: string;
  try {
    // read before the mode is looked at: a folder or a missing file is refused, never told to chmod 600
    text = readFileSync(path, "utf8");
    if (statSync(path).mode & 0o077) security(`--key-file ${path} is readable by other users; chmod 600 it`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "is a directory" : (code ?? "cannot read");
    throw new ConfigError(`--key-file ${path}: ${why}`);
  }
  const keys = parseKeyFile(text, path);
  for (const key of Object.values(keys)) checkKeyCharacters(key, `--key-file ${path}`);
  return keys;
}

function keysFromEnv(env: NodeJS.ProcessEnv): Partial<Record<Lookup, string>> {
  const keys: Partial<Record<Lookup, string>> = {};
  const pick = (name: string) => {
    const v = env[name];
    if (v) checkKeyCharacters(v, name);
    return v;
  };
  const both = pick(ENV.key);
  for (const l of LOOKUP_LIST) {
    const key = pick(l.keyEnv) || both;
    if (key) keys[l.name] = key;
  }
  return keys;
}
