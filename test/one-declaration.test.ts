// Issue 20.4: one declaration per concept: the lookup registry, the provider key, one base class for
// errors a user can fix, and the option tables of every command.
import { describe, expect, it } from "vitest";
import { LOOKUPS, SPEED_FIELDS, mobileFields } from "../src/contract/fields.js";
import { LOOKUP_LIST, LOOKUP_SPECS, perLookup } from "../src/contract/lookups.js";
import { lookupPath } from "../src/contract/types.js";
import { providerKey, providerNeedle, providersOfKey } from "../src/store/provider-key.js";
import { UserError } from "../src/errors.js";
import { ConfigError } from "../src/cli/options/config-values.js";
import { InputError } from "../src/input/text-guard.js";
import { OpenDataError } from "../src/input/open-data.js";
import { DatabaseError, LockedError } from "../src/store/types.js";
import { ReportError, ScopeError } from "../src/report/set/scope.js";
import { OutLockedError } from "../src/outputs/out-lock.js";
import { OutputError } from "../src/outputs/output-error.js";
import { CliError } from "../src/cli/run-cli.js";
import { NetworkError } from "../src/fetch/http-client.js";
import { COMMAND_OPTIONS, optionsTable } from "../src/cli/options/options-doc.js";
import { parseTable } from "../src/cli/options/engine.js";
import { EXPORT_OPTIONS } from "../src/cli/export-options.js";
import { REPORT_OPTIONS } from "../src/cli/report-options.js";
import { STATUS_OPTIONS } from "../src/cli/status-options.js";

describe("the lookup registry", () => {
  it("has one entry per lookup, in LOOKUPS order, with its path, table and fields", () => {
    expect(LOOKUP_LIST.map((l) => l.name)).toEqual([...LOOKUPS]);
    expect(lookupPath("broadband", "SW1A 1AA")).toBe("/broadband/coverage/SW1A%201AA");
    expect(lookupPath("mobile", "SW1A1AA")).toBe("/mobile/coverage/SW1A1AA");
    expect(perLookup((l) => LOOKUP_SPECS[l].table)).toEqual({ broadband: "broadband_addresses", mobile: "mobile_addresses" });
    expect(LOOKUP_SPECS.broadband.valueFields(["X"])).toEqual([...SPEED_FIELDS]);
    expect(LOOKUP_SPECS.mobile.valueFields(["ProvA", "ProvB"])).toEqual(mobileFields(["ProvA", "ProvB"]));
    expect(perLookup((l) => LOOKUP_SPECS[l].perProvider)).toEqual({ broadband: false, mobile: true });
  });
});

describe("the provider key", () => {
  it("puts each provider between commas and reads them back", () => {
    expect(providerKey(["ProvA", "ProvB"])).toBe(",ProvA,ProvB,");
    expect(providersOfKey(",ProvA,ProvB,")).toEqual(["ProvA", "ProvB"]);
    expect(providersOfKey(null)).toEqual([]);
    expect(providerKey(["ProvA", "ProvB"]).includes(providerNeedle("ProvB"))).toBe(true);
    expect(providerKey(["ProvAB"]).includes(providerNeedle("ProvA"))).toBe(false);
  });
});

describe("errors a user can fix", () => {
  it("share one base class; a network failure is not one", () => {
    for (const E of [ConfigError, InputError, OpenDataError, DatabaseError, LockedError, ReportError, ScopeError, OutputError, OutLockedError, CliError])
      expect(new E("x"), E.name).toBeInstanceOf(UserError);
    expect(Object.prototype.isPrototypeOf.call(UserError.prototype, NetworkError.prototype)).toBe(false);
  });
});

describe("every command's options", () => {
  it("are in docs/options.md, shared entries shared", () => {
    const table = optionsTable();
    for (const command of Object.keys(COMMAND_OPTIONS)) expect(table).toContain(`## npm run ${command}\n`);
    expect(REPORT_OPTIONS.db).toBe(STATUS_OPTIONS.db);
    expect(REPORT_OPTIONS.run).toBe(EXPORT_OPTIONS.run);
    expect(table).toContain("| `--good-rating` | number |  |  | mobile ratings at or above this are good coverage (1-4; default the scale's own: Likely (4) on the current scale, Green (3) on the legacy one) |");
    expect(table).toContain("| `--mobile-scale` | string | `auto` |");
  });

  it("are checked by their table", () => {
    expect(parseTable(REPORT_OPTIONS, { run: "7", goodRating: "2" })).toMatchObject({ run: 7, goodRating: 2, bom: true, workbookRows: 100_000 });
    expect(() => parseTable(EXPORT_OPTIONS, { out: "x", format: "xml" })).toThrow('--format: "xml" is not one of parquet, csv');
    expect(() => parseTable(STATUS_OPTIONS, { runs: "0" })).toThrow('--runs: expected a whole number >= 1, got "0"');
    expect(() => parseTable(REPORT_OPTIONS, { run: "abc" })).toThrow('--run: "abc" is not a run id');
  });
});
