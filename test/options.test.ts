// The batch's option declarations (src/cli/batch-options.ts): one entry per option gives its flag, default,
// environment variable, check and recorded value. A new option gets its test here.
import { describe, expect, it } from "vitest";
import { BATCH_OPTIONS, parseOptions, recordedArgs } from "../src/cli/batch-options.js";
import { flagName, parseTable } from "../src/cli/options/engine.js";
import { ConfigError } from "../src/cli/options/config-values.js";
import { EXPORT_OPTIONS } from "../src/cli/export-options.js";
import { REPORT_OPTIONS } from "../src/cli/report-options.js";
import { STATUS_OPTIONS } from "../src/cli/status-options.js";
import { optionsTable } from "../src/cli/options/options-doc.js";
import { buildConfig } from "../src/cli/batch-config.js";

const KEY = "Ab3-Cd4-Ef5-Gh6-Ij7";

describe("batch option declarations", () => {
  it("give every option its default and check", () => {
    const v = parseOptions({ in: "x.csv", simulate: true }, {});
    expect(v).toMatchObject({
      in: "x.csv",
      db: "output/coverage.sqlite",
      out: "output",
      lookups: ["broadband", "mobile"],
      concurrency: 4,
      rate: 100,
      retries: 5,
      timeout: 30_000,
      maxAge: 30 * 86_400_000,
      outageLimit: 15 * 60_000,
      maxRequests: null,
      refresh: false,
      logFormat: "text",
    });
  });

  it("read numbers from text with a clear error for anything else", () => {
    expect(parseOptions({ in: "x", rate: "250", concurrency: "8" }, {})).toMatchObject({ rate: 250, concurrency: 8 });
    expect(() => parseOptions({ in: "x", rate: "abc" }, {})).toThrow('--rate: expected a number, got "abc"');
    expect(() => parseOptions({ in: "x", concurrency: "2.5" }, {})).toThrow("--concurrency: expected a whole number from 1 to 1000, got 2.5");
    expect(() => parseOptions({ in: "x", outageLimit: "soon" }, {})).toThrow('--outage-limit: "soon" is not a duration');
  });

  it("take a value from the environment when the flag is absent, and never echo it in an error", () => {
    expect(parseOptions({ in: "x" }, { COVERAGE_API_URL: "https://api.example.com/v1" }).baseUrl?.href).toBe("https://api.example.com/v1");
    expect(parseOptions({ in: "x", baseUrl: "https://flag.example.com" }, { COVERAGE_API_URL: "https://env.example.com" }).baseUrl?.host).toBe("flag.example.com");
    expect(() => parseOptions({ in: "x" }, { COVERAGE_API_URL: KEY })).toThrow(/^COVERAGE_API_URL: not a valid value for --base-url: \*\*\* is not a URL \(value not shown\)$/);
    // it still says why, as the flag would, with the value (and every piece of it) left out
    expect(() => parseOptions({ in: "x" }, { COVERAGE_API_URL: "http://coverage.example.org" })).toThrow(
      /^COVERAGE_API_URL: not a valid value for --base-url: refusing plain http to \*\*\*: the key would travel in clear; use https \(value not shown\)$/,
    );
  });

  it("--simulate ignores an address in the environment", () => {
    expect(buildConfig({ in: "x", simulate: true }, { COVERAGE_API_URL: "not a url" }).baseUrl).toBeNull();
  });

  it("record the options of a run, never a key or the key file's content", () => {
    const config = buildConfig({ in: "x.csv", baseUrl: "https://api.example.com" }, { COVERAGE_API_KEY: KEY });
    expect(config.recordedArgs).toEqual({ ...recordedArgs(parseOptions({ in: "x.csv", baseUrl: "https://api.example.com" }, {})), keySource: "environment" });
    expect(config.recordedArgs).toMatchObject({ in: "x.csv", baseUrl: "https://api.example.com/", outageLimit: 900_000 });
    expect(config.recordedArgs).not.toHaveProperty("logFormat");
    expect(JSON.stringify(config.recordedArgs)).not.toContain(KEY.slice(0, 6));
  });

  it("--order: new postcodes in the sample's order by default, the file's on request; anything else is refused in one line", () => {
    expect(parseOptions({ in: "x" }, {}).order).toBe("sample");
    expect(parseOptions({ in: "x", order: "input" }, {}).order).toBe("input");
    expect(() => parseOptions({ in: "x", order: "random" }, {})).toThrow('--order: expected sample or input, got "random"');
  });

  it("plan the month's requests and name releases: --probe, --release, --monthly-quota, --quota-reset-day, --spend-all", () => {
    expect(parseOptions({ in: "x" }, {})).toMatchObject({ probe: 20, release: null, monthlyQuota: null, quotaResetDay: 1, spendAll: false, simulateRelease: 1 });
    expect(parseOptions({ in: "x", probe: "0", release: " 2026-spring ", monthlyQuota: "broadband=50000,mobile=150000", quotaResetDay: "15", spendAll: true }, {})).toMatchObject({
      probe: 0,
      release: "2026-spring",
      monthlyQuota: { broadband: 50_000, mobile: 150_000 },
      quotaResetDay: 15,
      spendAll: true,
    });
    expect(parseOptions({ in: "x" }, { COVERAGE_MONTHLY_QUOTA: "50000" }).monthlyQuota).toEqual({ broadband: 50_000, mobile: 50_000 });
    expect(() => parseOptions({ in: "x", probe: "-1" }, {})).toThrow("--probe: expected a whole number from 0 up, got -1");
    expect(() => parseOptions({ in: "x", quotaResetDay: "29" }, {})).toThrow("--quota-reset-day: expected a whole number from 1 to 28, got 29");
  });

  it("group and match the analyst's rows: --group-by, --area-file, --uprn-column", () => {
    expect(parseOptions({ in: "x" }, {})).toMatchObject({ groupBy: undefined, areaFile: undefined, uprnColumn: undefined, openData: null });
    expect(parseOptions({ in: "x", openData: " ofcom.zip " }, {})).toMatchObject({ openData: "ofcom.zip", openDataPremises: "all" });
    expect(parseOptions({ in: "x", openDataPremises: "residential" }, {})).toMatchObject({ openDataPremises: "residential" });
    expect(() => parseOptions({ in: "x", openDataPremises: "homes" }, {})).toThrow('--open-data-premises: expected all or residential, got "homes"');
    expect(parseOptions({ in: "x", groupBy: "region,district", areaFile: "onspd.csv", uprnColumn: "uprn" }, {})).toMatchObject({
      groupBy: ["region", "district"],
      areaFile: "onspd.csv",
      uprnColumn: "uprn",
    });
  });

  it("limit the workbook's address sheets: --workbook-rows", () => {
    expect(parseOptions({ in: "x" }, {})).toMatchObject({ workbookRows: 100_000 });
    expect(parseOptions({ in: "x", workbookRows: "0" }, {})).toMatchObject({ workbookRows: 0 });
    expect(() => parseOptions({ in: "x", workbookRows: "2000000" }, {})).toThrow("--workbook-rows: expected a whole number from 0 to 1048575, got 2000000");
  });

  it("refuse an option given more than once (yargs makes it an array) in every command, as a config error naming it", () => {
    const twice = (a: string, b: string) => [a, b] as never;
    const refusal = (parse: () => unknown) => {
      try {
        parse();
        return "accepted";
      } catch (err) {
        return err instanceof ConfigError ? err.message : `not a ConfigError: ${String(err)}`;
      }
    };
    expect(refusal(() => parseOptions({ in: twice("a.csv", "b.csv") }, {}))).toBe("--in given 2 times; give it once");
    expect(refusal(() => parseOptions({ in: "x", column: twice("postcode", "postcode") }, {}))).toBe("--column given 2 times; give it once");
    expect(refusal(() => parseOptions({ in: "x", rate: twice("10", "20") }, {}))).toBe("--rate given 2 times; give it once");
    expect(refusal(() => parseTable(STATUS_OPTIONS, { db: twice("a", "b") }))).toBe("--db given 2 times; give it once");
    expect(refusal(() => parseTable(REPORT_OPTIONS, { out: ["a", "b", "c"] as never }))).toBe("--out given 3 times; give it once");
    expect(refusal(() => parseTable(EXPORT_OPTIONS, { out: "x", db: twice("a", "b") }))).toBe("--db given 2 times; give it once");
    // an empty --in (an unset shell variable) is said as such, not as a file named ""
    expect(refusal(() => parseOptions({ in: "" }, {}))).toBe("--in is empty: give a file path, or - for standard input");
    // an empty --db, or :memory:, would keep nothing (SQLite makes a database that goes when the command ends): refused by every command that takes it
    const empty = "--db is empty (an unset variable?): give the SQLite database file, or a postgres:// URL";
    const memory = "--db :memory: keeps nothing once the command ends: give the SQLite database file, or a postgres:// URL";
    for (const [db, message] of [["", empty], ["  ", empty], [":memory:", memory]] as const) {
      expect(refusal(() => parseOptions({ in: "x", db }, {})), "batch").toBe(message);
      expect(refusal(() => parseTable(STATUS_OPTIONS, { db })), "status").toBe(message);
      expect(refusal(() => parseTable(REPORT_OPTIONS, { db })), "report").toBe(message);
      expect(refusal(() => parseTable(EXPORT_OPTIONS, { out: "x", db })), "export").toBe(message);
    }
  });

  it("name flags in kebab case and list every visible option in the table", () => {
    expect(flagName("maxRequests")).toBe("--max-requests");
    const table = optionsTable();
    for (const [name, spec] of Object.entries(BATCH_OPTIONS))
      if (spec.hidden) expect(table).not.toContain(`\`${flagName(name)}\``);
      else expect(table).toContain(`| \`${flagName(name)}\` |`);
  });
});
