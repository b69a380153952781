// groups.csv and --area-file against the fixed report database: every figure per group equals a
// plain JavaScript computation over SELECT * rows from the documented definitions; a postcode
// counts once per group, in every group that names it; blank, unmatched and invalid rows have
// their own groups; a large area file keeps only the postcodes in scope.
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { parse } from "csv-parse/sync";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReportError, writeReports } from "../src/report/index.js";
import { loadAreaFile, readAreaHeader } from "../src/report/groups/area-file.js";
import type { Store } from "../src/store/store.js";
import { addRun, buildFixture, FIXED_NOW } from "./fixtures/report-golden/build-fixture.js";
import { independentGroups, type Expected } from "./helpers/independent-figures.js";

const COLUMNS = ["id", "Post Code", "region"];
const ROWS = [
  ["001", "CF10 1AA", "Wales"],
  ["002", "cf101aa", "Wales"], // the same postcode twice in one group: counted once
  ["003", "SW1A 2AA", "London"],
  ["004", "CF10 1AA", "London"], // the same postcode in a second group: counted in both
  ["005", "B10 1AA", ""],
  ["006", "NOT A POSTCODE", "Wales"],
  ["007", "B1 1AA", "   "],
];

let dir: string;
let db: Store;
let runId: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pcc-groups-"));
  ({ store: db } = await buildFixture(join(dir, "coverage.sqlite")));
  runId = await addRun(db, ROWS, ["broadband", "mobile"], false, COLUMNS);
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const read = (path: string) => {
  const rows = parse(readFileSync(path), { bom: true }) as string[][];
  return rows.slice(1).map((r) => Object.fromEntries(rows[0]!.map((h, i) => [h, r[i]!])));
};

function areaFile(lines: string[]): string {
  const path = join(dir, `areas-${lines.length}.csv`);
  writeFileSync(path, lines.join("\r\n") + "\r\n");
  return path;
}

/** groups.csv as the expected rows say it should read: counts, and shares to one decimal place. */
function asCsv(e: Expected): Record<string, string> {
  // unknown (no answer behind it) is an empty cell
  const cell = (n: number | null) => (n === null ? "" : String(n));
  const share = (count: number | null, of: number | null) => (count === null || !of ? "" : String(Math.round((count / of) * 10_000) / 10_000));
  const out: Record<string, string> = {
    Dimension: e.dimension,
    Group: e.group,
    InputRows: String(e.inputRows),
    Postcodes: String(e.postcodes),
    Addresses: cell(e.addresses),
    BroadbandAddresses: cell(e.broadbandAddresses),
    MobileAddresses: cell(e.mobileAddresses),
  };
  for (const [column, count] of Object.entries(e.broadband)) {
    out[column] = cell(count);
    out[`${column}Share`] = share(count, e.broadbandAddresses);
  }
  for (const [column, count] of Object.entries(e.mobile)) {
    out[column] = cell(count);
    out[`${column}Share`] = share(count, e.mobileAddresses);
  }
  return out;
}

describe("groups.csv", () => {
  it("has one row per dimension and value whose figures equal an independent computation", async () => {
    const out = join(dir, "by-region");
    const area = areaFile([
      "pcd,pcds,ward",
      "CF101AA,CF10 1AA,Cathays",
      "SW1A2AA,SW1A 2AA,St James's",
      "XX,XX,broken row",
      "M11AE,M1 1AE,Piccadilly",
    ]);
    const warnings: string[] = [];
    const result = await writeReports(db, {
      outDir: out,
      runId,
      now: () => FIXED_NOW,
      groupBy: ["region", "district", "sector", "ward"],
      areaFile: area,
      onWarning: (m) => warnings.push(m),
    });
    expect(result.files.map((f) => f.slice(out.length + 1))).toContain("groups.csv");
    const wards = new Map([["CF101AA", "Cathays"], ["SW1A2AA", "St James's"]]);
    const expected = await independentGroups(db, runId, 3, [
      { name: "region", valueOf: (cells) => cells[2] },
      { name: "district", valueOf: (_, p) => (p === null ? "(invalid postcode)" : p.slice(0, -3)) },
      { name: "sector", valueOf: (_, p) => (p === null ? "(invalid postcode)" : `${p.slice(0, -3)} ${p.at(-3)}`) },
      { name: "ward", valueOf: (_, p) => (p === null ? "(invalid postcode)" : (wards.get(p) ?? "(unmatched)")) },
    ]);
    const written = read(join(out, "groups.csv"));
    expect(written).toEqual(expected.map((e) => expect.objectContaining(asCsv(e))));

    const region = (g: string) => written.find((r) => r.Dimension === "region" && r.Group === g)!;
    // CF10 1AA on two Wales rows: 2 input rows, 1 postcode; also in London
    expect(region("Wales")).toMatchObject({ InputRows: "3", Postcodes: "1", Addresses: "5" });
    expect(region("London")).toMatchObject({ InputRows: "2", Postcodes: "2", Addresses: "7" });
    expect(region("(blank)")).toMatchObject({ InputRows: "2", Postcodes: "2" });
    expect(written.filter((r) => r.Dimension === "ward").map((r) => r.Group)).toEqual(["Cathays", "St James's", "(invalid postcode)", "(unmatched)"]);
    expect(warnings).toContain(`2 of 4 postcodes are not in --area-file ${area}: their groups are (unmatched)`);
  });

  it("by default groups by the postcode's area and district; --group-by none writes no groups.csv", async () => {
    const out = join(dir, "default");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW });
    expect([...new Set(read(join(out, "groups.csv")).map((r) => r.Dimension))]).toEqual(["area", "district"]);
    expect(read(join(out, "groups.csv")).filter((r) => r.Dimension === "area").map((r) => r.Group)).toEqual(["B", "CF", "SW", "(invalid postcode)"]);
    const none = await writeReports(db, { outDir: join(dir, "none"), runId, now: () => FIXED_NOW, groupBy: [] });
    expect(none.files.some((f) => f.endsWith("groups.csv"))).toBe(false);
  });

  it("an unknown --group-by name or an area file without a postcode column is a ReportError naming it", async () => {
    await expect(writeReports(db, { outDir: join(dir, "x"), runId, groupBy: ["regoin"] })).rejects.toThrow(
      /--group-by "regoin": no such column; the names available are "area", "district", "sector", "id", "Post Code", "region"/,
    );
    await expect(writeReports(db, { outDir: join(dir, "x"), runId, groupBy: ["region"], areaFile: areaFile(["code,ward", "x,y"]) })).rejects.toThrow(
      ReportError,
    );
    await expect(writeReports(db, { outDir: join(dir, "x"), runId, areaFile: join(dir, "missing.csv") })).rejects.toThrow(
      /--area-file .*missing\.csv: cannot read it \(no such file\)/,
    );
  });
});

describe("--area-file at scale", () => {
  it("streams a 200,000-row file and keeps only the postcodes in scope", async () => {
    const path = join(dir, "big-areas.csv");
    const file = createWriteStream(path);
    file.write("pcd,pcd2,pcds,oslaua,osward\n");
    // every valid postcode shape AA9 9AA over the alphabet: 200,000 rows, none of them in scope but the last two
    for (let i = 0; i < 199_998; i++) {
      const a = String.fromCharCode(65 + (i % 26));
      const b = String.fromCharCode(65 + (Math.floor(i / 26) % 26));
      const n = Math.floor(i / 676) % 100;
      const pc = `L${n} ${Math.floor(i / 67_600)}${a}${b}`;
      if (!file.write(`${pc},${pc},${pc},E0800${i % 10},E0500${i % 1000}\n`)) await once(file, "drain");
    }
    file.write("CF10 1AA,CF10 1AA,CF10 1AA,W06000015,W05000867\nSW1A2AA,SW1A 2AA,SW1A 2AA,E09000033,E05013806\n");
    file.end();
    await once(file, "close");

    // loaded directly: only the in-scope postcodes are kept, whatever the file's size (what the
    // snapshot groups by the kept cells is the rows it kept)
    await db.snapshot({ runId, nowMs: Date.now() }, async (snapshot) => {
      await snapshot.preparePostcodes(3);
      const load = await loadAreaFile(snapshot, await readAreaHeader(path), ["oslaua"]);
      expect(load).toEqual({ rows: 200_000, invalid: 0, matched: 2, unmatched: 2, located: 0 });
      await snapshot.prepareGroups([{ source: "area-file", index: 0 }]);
      const kept: [string, number][] = [];
      for await (const batch of snapshot.groupTotals([])) for (const g of batch) kept.push([g.group, g.postcodes]);
      expect(kept).toEqual([["E09000033", 1], ["W06000015", 1], ["(invalid postcode)", 0], ["(unmatched)", 2]]);
    });

    const out = join(dir, "big");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW, groupBy: ["oslaua"], areaFile: path });
    const groups = read(join(out, "groups.csv")).map((r) => [r.Group, r.Postcodes]);
    expect(groups).toEqual([["E09000033", "1"], ["W06000015", "1"], ["(invalid postcode)", "0"], ["(unmatched)", "2"]]);
  });
});
