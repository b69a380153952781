import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseBaseUrl, parseKeyFile, parseLookups } from "../src/cli/options/config-values.js";
import { buildConfig, type BatchFlags } from "../src/cli/batch-config.js";
import { parseDuration } from "../src/cli/options/duration.js";
import { decideExit, describeStops } from "../src/pipeline/exit-code.js";
import { parseProviders, mobileFields, SPEED_FIELDS } from "../src/contract/fields.js";

const flags = (over: Partial<BatchFlags> = {}): BatchFlags => ({
  in: "x.csv",
  db: "db",
  out: "out",
  lookups: "broadband,mobile",
  providers: "ProvA,ProvB,ProvC,ProvD",
  concurrency: 4,
  rate: 100,
  retries: 5,
  timeout: 30,
  maxAge: "30d",
  refresh: false,
  simulate: false,
  logFormat: "text",
  quiet: false,
  reports: true,
  ...over,
});

describe("spec field lists", () => {
  it("has 8 speed fields and 32 mobile fields in spec order", () => {
    expect(SPEED_FIELDS).toHaveLength(8);
    const m = mobileFields();
    expect(m).toHaveLength(32);
    expect(m.slice(0, 4)).toEqual(["ProvAVoiceOutdoor", "ProvAVoiceOutdoorNo4g", "ProvAVoiceIndoor", "ProvAVoiceIndoorNo4g"]);
    expect(m[31]).toBe("ProvDDataIndoorNo4g");
    expect(mobileFields(["EE"])).toHaveLength(8);
  });
  it("validates provider codes", () => {
    expect(parseProviders("EE, VO")).toEqual(["EE", "VO"]);
    expect(() => parseProviders("Prov A")).toThrow(/not a provider code/);
    expect(() => parseProviders("ProvA,provA")).toThrow(/twice/);
    expect(() => parseProviders("")).toThrow(/at least one/);
  });
});

describe("config", () => {
  it("parses durations", () => {
    expect(parseDuration("30d")).toBe(30 * 86_400_000);
    expect(parseDuration("90m")).toBe(5_400_000);
    expect(parseDuration("45")).toBe(45_000);
    expect(() => parseDuration("soon")).toThrow(/not a duration/);
  });

  it("parses lookups in canonical order", () => {
    expect(parseLookups("mobile, broadband")).toEqual(["broadband", "mobile"]);
    expect(() => parseLookups("tv")).toThrow(ConfigError);
  });

  it("refuses plain http to anything but loopback", () => {
    expect(parseBaseUrl("http://127.0.0.1:8787").hostname).toBe("127.0.0.1");
    expect(parseBaseUrl("http://localhost:1/api").pathname).toBe("/api");
    expect(() => parseBaseUrl("http://api.example.com")).toThrow(/in clear/);
    expect(parseBaseUrl("https://api.example.com/v1").protocol).toBe("https:");
    expect(() => parseBaseUrl("https://api.example.com/?subscription-key=x")).toThrow(/without \?query/);
  });

  it("takes keys from the environment, per lookup overriding the shared one", () => {
    const c = buildConfig(flags({ baseUrl: "https://api.example.com" }), {
      COVERAGE_API_KEY: "shared-key-0123456",
      COVERAGE_MOBILE_KEY: "mob-key-0123456789",
    });
    expect(c.keys).toEqual({ broadband: "shared-key-0123456", mobile: "mob-key-0123456789" });
    expect(JSON.stringify(c.recordedArgs)).not.toMatch(/shared|mob"/);
  });

  it("refuses a key shorter than 16 characters, saying how long it is but never what it is (issue 19.8)", () => {
    expect(() => buildConfig(flags({ baseUrl: "https://a.example" }), { COVERAGE_API_KEY: "Kx7-short-key" })).toThrow(
      /^COVERAGE_API_KEY: the key is 13 characters long; a subscription key is 32 \(at least 16 are needed\): a cut-off copy\?$/,
    );
    expect(() => buildConfig(flags({ baseUrl: "https://a.example" }), { COVERAGE_API_KEY: "0123456789abcdef" })).not.toThrow();
  });

  it("needs a key per requested lookup and a base URL unless simulated", () => {
    // no key at all names every lookup that needs one, and each one's variable
    expect(() => buildConfig(flags({ baseUrl: "https://a.example" }), {})).toThrow(
      "no key for the broadband and mobile lookups: set COVERAGE_API_KEY (or COVERAGE_BROADBAND_KEY and COVERAGE_MOBILE_KEY), or use --key-file PATH",
    );
    expect(() => buildConfig(flags({ baseUrl: "https://a.example" }), { COVERAGE_MOBILE_KEY: "m-0123456789abcdef" })).toThrow(
      "no key for the broadband lookup: set COVERAGE_API_KEY (or COVERAGE_BROADBAND_KEY), or use --key-file PATH",
    );
    expect(() => buildConfig(flags(), { COVERAGE_API_KEY: "k-0123456789abcdef" })).toThrow(/no API address/);
    expect(buildConfig(flags({ simulate: true }), {}).baseUrl).toBeNull();
    expect(buildConfig(flags({ lookups: "mobile", baseUrl: "https://a.example" }), { COVERAGE_MOBILE_KEY: "m-0123456789abcdef" }).lookups).toEqual([
      "mobile",
    ]);
  });

  it("takes keys from --key-file instead of the environment, and never records them", () => {
    const dir = mkdtempSync(join(tmpdir(), "pcc-keyfile-"));
    try {
      const file = join(dir, "keys");
      writeFileSync(file, "broadband=bb-secret-1-abcdef\nmobile=mob-secret-2-abcdef\n", { mode: 0o600 });
      const warnings: string[] = [];
      const c = buildConfig(flags({ baseUrl: "https://api.example.com", keyFile: file }), { COVERAGE_API_KEY: "env-key-0123456789" }, (m) => warnings.push(m));
      expect(c.keys).toEqual({ broadband: "bb-secret-1-abcdef", mobile: "mob-secret-2-abcdef" });
      expect(JSON.stringify(c.recordedArgs)).not.toMatch(/secret|env-key/);
      expect(c.recordedArgs.keySource).toBe("key-file");
      expect(warnings).toEqual([]);
      chmodSync(file, 0o644);
      buildConfig(flags({ baseUrl: "https://api.example.com", keyFile: file }), {}, (m) => warnings.push(m));
      expect(warnings).toEqual([`--key-file ${file} is readable by other users; chmod 600 it`]);
      expect(() => buildConfig(flags({ baseUrl: "https://api.example.com", keyFile: join(dir, "none") }), {})).toThrow(/--key-file .*: no such file$/);
      // a folder is refused as one, not first told to chmod 600
      const folder = join(dir, "keys.d");
      mkdirSync(folder);
      chmodSync(folder, 0o755);
      warnings.length = 0;
      expect(() => buildConfig(flags({ baseUrl: "https://api.example.com", keyFile: folder }), {}, (m) => warnings.push(m))).toThrow(`--key-file ${folder}: is a directory`);
      expect(warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads key files in both forms", () => {
    expect(parseKeyFile("abc123\n", "f")).toEqual({ broadband: "abc123", mobile: "abc123" });
    expect(parseKeyFile("# keys\nbroadband=aa\nmobile: bb\n", "f")).toEqual({ broadband: "aa", mobile: "bb" });
    expect(() => parseKeyFile("a b c\nd", "f")).toThrow(/line 1/);
  });

  const KEY = "abcd1234efgh5678ijkl9012mnop3456";
  /** The message of parseKeyFile's ConfigError, checked never to hold a piece of the key. */
  function keyFileRefusal(text: string): string {
    try {
      parseKeyFile(text, "keys.txt");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      for (let i = 0; i + 6 <= KEY.length; i++) expect(message).not.toContain(KEY.slice(i, i + 6));
      return message;
    }
    return "accepted";
  }

  it("names a key file's bad line by its number in the file, comments and blank lines counted", () => {
    expect(keyFileRefusal(`# keys\n\nbroadband=${KEY}\nmobile ${KEY}\n`)).toBe('--key-file keys.txt line 4: neither a key nor "broadband=KEY" / "mobile=KEY"');
    expect(keyFileRefusal(`# keys\r\n\r\nbroadband=${KEY}\r\nshop=${KEY}\r\n`)).toMatch(/^--key-file keys\.txt line 4: the name before "=" is not broadband or mobile/);
  });

  it("refuses a key file line named like the environment variable, or a key in quotes, before any request and without the key", () => {
    const named = 'the name before "=" is not broadband or mobile; write the key alone, or broadband=KEY / mobile=KEY';
    expect(keyFileRefusal(`COVERAGE_API_KEY=${KEY}\n`)).toBe(`--key-file keys.txt line 1: ${named}`);
    expect(keyFileRefusal(`export COVERAGE_API_KEY=${KEY}\n`)).toBe(`--key-file keys.txt line 1: ${named}`);
    expect(keyFileRefusal(`# mine\nCOVERAGE_BROADBAND_KEY: ${KEY}\n`)).toBe(`--key-file keys.txt line 2: ${named.replace('"="', '":"')}`);
    expect(keyFileRefusal(`broadband="${KEY}"\nmobile=${KEY}\n`)).toBe("--key-file keys.txt line 1: the key is in quotes; write it without them");
    expect(keyFileRefusal(`'${KEY}'\n`)).toBe("--key-file keys.txt line 1: the key is in quotes; write it without them");
    expect(keyFileRefusal("mobile=\n")).toBe("--key-file keys.txt line 1: no key after the name");
    // a bare key may end in base64's padding, one "=" or two
    expect(parseKeyFile(`${KEY}==\n`, "keys.txt")).toEqual({ broadband: `${KEY}==`, mobile: `${KEY}==` });
    expect(parseKeyFile(`${KEY}=\n`, "keys.txt")).toEqual({ broadband: `${KEY}=`, mobile: `${KEY}=` });
    // a name that is not a lookup's is never repeated: it may be a key
    expect(keyFileRefusal(`broadband=${KEY}\n${KEY.slice(0, 20)}=${KEY.slice(20)}\n`)).toBe(`--key-file keys.txt line 2: ${named}`);
  });

  it("rejects nonsense numbers", () => {
    expect(() => buildConfig(flags({ simulate: true, concurrency: 0 }), {})).toThrow(/--concurrency/);
    expect(() => buildConfig(flags({ simulate: true, rate: -1 }), {})).toThrow(/--rate/);
    expect(() => buildConfig(flags({ simulate: true, maxAge: "x" }), {})).toThrow(/--max-age/);
  });
});

describe("exit codes", () => {
  it("ranks causes: key error, then signal, then quota, then failures", () => {
    expect(decideExit([], 0, 0)).toEqual({ code: 0, state: "completed" });
    expect(decideExit([], 3, 0).code).toBe(2);
    expect(decideExit([{ kind: "quota", lookup: "mobile", message: "" }], 3, 10).code).toBe(3);
    expect(decideExit([{ kind: "max_requests", limit: 5 }], 0, 10).code).toBe(3);
    expect(decideExit([{ kind: "signal", signal: "SIGTERM" }, { kind: "quota", lookup: "mobile", message: "" }], 0, 1).code).toBe(143);
    expect(decideExit([{ kind: "signal", signal: "SIGINT" }], 0, 1).code).toBe(130);
    // a lost lease: another batch owns the work, whatever else stopped this one
    expect(decideExit([{ kind: "lease_lost", message: "" }, { kind: "quota", lookup: "mobile", message: "" }], 2, 40)).toEqual({ code: 4, state: "stopped" });
    expect(decideExit([{ kind: "quota", lookup: "mobile", message: "" }, { kind: "auth", lookup: "broadband", message: "" }], 0, 1)).toEqual({
      code: 1,
      state: "failed",
    });
  });

  it("a rejected key names every lookup it stops: each refused, and each sending the same key", () => {
    const refused = (lookup: "broadband" | "mobile") => ({ kind: "auth" as const, lookup, message: "HTTP 401: invalid subscription key" });
    const both = "the broadband and mobile keys were rejected (HTTP 401: invalid subscription key); check COVERAGE_BROADBAND_KEY, COVERAGE_MOBILE_KEY, COVERAGE_API_KEY or the --key-file";
    expect(describeStops([refused("broadband"), refused("mobile")], { broadband: "b-key", mobile: "m-key" })).toBe(both);
    expect(describeStops([refused("broadband")], { broadband: "one-key", mobile: "one-key" })).toBe(both);
    expect(describeStops([refused("mobile")], { broadband: "b-key", mobile: "m-key" })).toBe(
      "the mobile key was rejected (HTTP 401: invalid subscription key); check COVERAGE_MOBILE_KEY, COVERAGE_API_KEY or the --key-file",
    );
    expect(describeStops([], {})).toBeNull();
  });
});
