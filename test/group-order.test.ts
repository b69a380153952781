// District, sector and group names sort naturally in every report: LS1, LS2, LS10, LS11, not
// LS1, LS10, LS11, LS2. One comparator, in JavaScript after the snapshot, so both engines agree.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { byLocale, codePointOrder, naturalOrder } from "../src/figures/name-order.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("naturalOrder", () => {
  it("counts a number inside a name as a number, and keeps the order it refines elsewhere", () => {
    expect(["LS11", "LS2", "LS10", "LS1"].sort((a, b) => naturalOrder(a, b))).toEqual(["LS1", "LS2", "LS10", "LS11"]);
    expect(["LS10 1", "LS2 10", "LS2 9", "LS1 1"].sort((a, b) => naturalOrder(a, b))).toEqual(["LS1 1", "LS2 9", "LS2 10", "LS10 1"]);
    expect(["B10", "B1", "BA1", "B2"].sort((a, b) => naturalOrder(a, b))).toEqual(["B1", "B2", "B10", "BA1"]);
    // without numbers at the same place: the base order, byte order by default
    expect(["b", "B", "a", "(blank)", "Ward 1"].sort((a, b) => naturalOrder(a, b))).toEqual(["(blank)", "B", "Ward 1", "a", "b"]);
    expect(["b", "B", "a"].sort((a, b) => naturalOrder(a, b, byLocale))).toEqual(["b", "B", "a"].sort(byLocale));
    expect(naturalOrder("x007", "x7")).toBe(codePointOrder("x007", "x7"));
    expect(naturalOrder("12345678901234567890", "9")).toBeGreaterThan(0);
  });
});

describe("the reports' groups", () => {
  it("list districts and sectors in natural order in groups.csv", async () => {
    const d = tempDir("pcc-group-order-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", "LS11 5AA", "LS2 7AA", "LS10 1AA", "LS1 1AA", "LS2 1AA"]);
    const r = await runIn(d, { in: input, simulate: true, groupBy: "district,sector" }, {});
    expect(r.exitCode).toBe(0);
    const rows = parse(readFileSync(join(d, "out", "groups.csv")), { columns: true, bom: true }) as Record<string, string>[];
    const of = (dimension: string) => rows.filter((row) => row.Dimension === dimension).map((row) => row.Group);
    // on main: LS1, LS10, LS11, LS2
    expect(of("district")).toEqual(["LS1", "LS2", "LS10", "LS11"]);
    expect(of("sector")).toEqual(["LS1 1", "LS2 1", "LS2 7", "LS10 1", "LS11 5"]);
  });
});
