// Parsers for single configuration values, shared by the option declarations and buildConfig.
import { LOOKUPS, type Lookup } from "../../contract/fields.js";
import { UserError } from "../../errors.js";

/** Where the API's address comes from when --base-url is not given. */
export const URL_ENV = "COVERAGE_API_URL";

/** A configuration or command-line error: one line for the user, exit 1. */
export class ConfigError extends UserError {}

export function parseLookups(list: string): Lookup[] {
  const items = list
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length === 0) throw new ConfigError(`--lookups: name at least one of ${LOOKUPS.join(", ")}`);
  for (const i of items)
    if (!(LOOKUPS as readonly string[]).includes(i)) throw new ConfigError(`--lookups: "${i}" is not one of ${LOOKUPS.join(", ")}`);
  return LOOKUPS.filter((l) => items.includes(l));
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** `name` is what the message names (--base-url, or the environment variable it came from). */
export function parseBaseUrl(text: string, name = "--base-url"): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name}: "${text}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(`${name}: ${url.protocol} is not http or https`);
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    throw new ConfigError(`${name}: refusing plain http to ${url.hostname}: the key would travel in clear; use https`);
  if (url.username || url.password) throw new ConfigError(`${name}: credentials in the URL are not allowed`);
  // new URL drops an empty "?" or "#": look at the text too
  if (url.search || url.hash || /[?#]/.test(text)) throw new ConfigError(`${name}: give the base address only, without ?query or #fragment`);
  return url;
}

/**
 * A named key line: NAME=KEY or NAME: KEY, also with `export` before it as a shell line has it. A
 * value that is empty or starts with = or : is not one: a bare key may end in base64's "=" or "==".
 */
const NAMED_KEY_LINE = /^((?:export\s+)?\w+|\*)\s*([=:])\s*(?![=:])(.+)$/;
/** A lookup's name with nothing after it: `mobile=`. */
const NAME_WITHOUT_KEY = /^(broadband|mobile|both|\*)\s*[=:]\s*$/i;

/** Key file: one line with a key for both lookups, or lines `broadband=KEY` / `mobile=KEY`. */
export function parseKeyFile(text: string, path: string): Partial<Record<Lookup, string>> {
  // numbered before comments and blank lines are dropped: an error names the line an editor shows
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), at: `--key-file ${path} line ${i + 1}` }))
    .filter(({ line }) => line.length > 0 && !line.startsWith("#"));
  const keys: Partial<Record<Lookup, string>> = {};
  for (const { line, at } of lines) {
    const named = NAMED_KEY_LINE.exec(line);
    if (NAME_WITHOUT_KEY.test(line)) throw new ConfigError(`${at}: no key after the name`);
    if (named) {
      const [, name = "", separator = "", key = ""] = named;
      const lookups = lookupsNamed(name);
      // never the one-key form: COVERAGE_API_KEY=KEY would send the whole line as the key; the
      // name is not repeated, as it may be part of a key
      if (!lookups) throw new ConfigError(`${at}: the name before "${separator}" is not broadband or mobile; write the key alone, or broadband=KEY / mobile=KEY`);
      for (const l of lookups) keys[l] = unquotedKey(key, at);
    } else if (lines.length === 1 && !/\s/.test(line)) {
      for (const l of LOOKUPS) keys[l] = unquotedKey(line, at);
    } else {
      throw new ConfigError(`${at}: neither a key nor "broadband=KEY" / "mobile=KEY"`);
    }
  }
  return keys;
}

/** The lookups a key line's name gives its key to, or null for a name that is none of them. */
function lookupsNamed(name: string): readonly Lookup[] | null {
  const lower = name.toLowerCase();
  if ((LOOKUPS as readonly string[]).includes(lower)) return [lower as Lookup];
  return lower === "both" || lower === "*" ? LOOKUPS : null;
}

/** The key as written, refused when quoted: quotes would be sent as part of it. Never echoes it. */
function unquotedKey(key: string, at: string): string {
  if (/^["']|["']$/.test(key)) throw new ConfigError(`${at}: the key is in quotes; write it without them`);
  return key;
}

/** Visible ASCII only: anything else cannot travel in an HTTP header (a trailing \r from a CRLF file). */
export function checkKeyCharacters(key: string, source: string): void {
  if (!/^[\x21-\x7e]+$/.test(key))
    throw new ConfigError(
      `${source}: the key contains a character that is not allowed in an HTTP header (a space, a line break or a carriage return from a Windows file?)`,
    );
  // A subscription key is 32 characters; a much shorter one is a cut-off copy, and could not be
  // masked in logs and answers without masking ordinary text (redact.ts masks runs of 6 of its characters).
  if (key.length < MIN_KEY_LENGTH)
    throw new ConfigError(`${source}: the key is ${key.length} characters long; a subscription key is 32 (at least ${MIN_KEY_LENGTH} are needed): a cut-off copy?`);
}

/** The shortest key accepted. */
const MIN_KEY_LENGTH = 16;
