// The map of report.html and postcodes.geojson, from a batch against the simulator with an extract
// of the ONS Postcode Directory in its published form (test/fixtures/area-file/onspd-extract.csv:
// every cell quoted, pcd/pcd2/pcds, the "no grid reference" placeholder 99.999999, an empty row;
// coordinates near the real ones). The hexagons' figures are checked against sums made here from
// broadband.csv and mobile.csv, per city (the fixture's postcodes sit in tight clusters far apart,
// so each city is one hexagon); the GeoJSON's coordinates against the file's own cells.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCoordinateColumns, parseCoordinates } from "../src/figures/coordinates.js";
import { readAreaHeader } from "../src/report/groups/area-file.js";
import { normalisePostcode } from "../src/contract/postcode.js";
import { writeFileSync } from "node:fs";
import { layoutMap, type MapPoint } from "../src/report/html/map/layout.js";
import { mapClass, mapSection } from "../src/report/html/sections/map.js";
import { generatePostcodes, simulatedAreaFile, simulatedCoordinates } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";

const EXTRACT = fileURLToPath(new URL("./fixtures/area-file/onspd-extract.csv", import.meta.url));
type Row = Record<string, string>;
const readCsv = (path: string): Row[] => parse(readFileSync(path), { bom: true, columns: true }) as Row[];

describe("coordinates from an area file's header and cells", () => {
  it("finds lat/long in the ONS directory's releases and latitude/longitude elsewhere", () => {
    expect(findCoordinateColumns(["pcd", "pcds", "oseast1m", "lat", "long"])).toEqual({ latitude: 3, longitude: 4 });
    expect(findCoordinateColumns(["PCD7", "PCDS", "LAT", "LONG"])).toEqual({ latitude: 2, longitude: 3 });
    expect(findCoordinateColumns(["postcode", "Longitude", "Latitude"])).toEqual({ latitude: 2, longitude: 1 });
    expect(findCoordinateColumns(["pcds", "lat"])).toBeNull();
    expect(findCoordinateColumns(["pcds", "oslaua"])).toBeNull();
  });

  it("takes the directory's pcd7 or pcd8 column as the postcode, whose padded forms normalise", async () => {
    const dir = tempDir("pcc-area-header-");
    try {
      for (const [header, column] of [["PCD7,OSLAUA,LAT,LONG", "PCD7"], ["pcd8;lat;long", "pcd8"]] as const) {
        const path = join(dir, `${column}.csv`);
        writeFileSync(path, `${header}\n`);
        const file = await readAreaHeader(path);
        expect(file.postcodeColumn).toBe(column);
        expect(file.coordinates).not.toBeNull();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // pcd7 pads a short outward code to 4, pcd8 puts a space after it
    expect(["B1  1AA", "B1   1AA", "CF101AA"].map((p) => normalisePostcode(p)).map((n) => (n.ok ? n.compact : null))).toEqual(["B11AA", "B11AA", "CF101AA"]);
  });

  it("reads the placeholder, empty cells and nonsense as unknown", () => {
    expect(parseCoordinates("51.481583", "-3.179090")).toEqual({ latitude: 51.481583, longitude: -3.17909 });
    expect(parseCoordinates("99.999999", "0.000000")).toBeNull();
    expect(parseCoordinates("", "")).toBeNull();
    expect(parseCoordinates("51.5", "")).toBeNull();
    expect(parseCoordinates("north", "-3")).toBeNull();
    expect(parseCoordinates("91", "0")).toBeNull();
  });
});

describe("the map and postcodes.geojson with a real-format directory extract", () => {
  const CITIES: Record<string, string> = { CF10: "Cardiff", SW1A: "London", B1: "Birmingham", IV1: "Inverness", TR1: "Truro", NR1: "Norwich" };
  // in the extract: every postcode but three (not in the list); EH1 1YZ is not in it, CF10 1ZZ has the placeholder, NR1 1ZZ empty cells
  const extract = readCsv(EXTRACT);
  const listed = extract.map((r) => r.pcds!).filter((p) => !["AB10 1AB", "LS1 1AA", "ZE1 0AA"].includes(p));
  let dir: string;
  let run: HarnessRun;
  let html: string;

  beforeAll(async () => {
    dir = tempDir("pcc-map-");
    const input = writeCsv(dir, "in.csv", ["postcode", ...listed, "EH1 1YZ", "not a postcode"]);
    run = await runIn(dir, { in: input, simulate: true, areaFile: EXTRACT }, {}, { simulator: { seed: 5 } });
    html = readFileSync(join(dir, "out", "report.html"), "utf8");
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const located = () => extract.filter((r) => listed.includes(r.pcds!) && r.lat !== "" && r.lat !== "99.999999");

  /** per city: postcodes, addresses and those affected, summed from the address files */
  function expectedBins(file: string, affected: (r: Row) => boolean): { postcodes: number; addresses: number; affected: number }[] {
    const rows = readCsv(join(dir, "out", file));
    const cities = new Map<string, { postcodes: number; addresses: number; affected: number }>();
    for (const r of located()) {
      const city = CITIES[r.pcds!.split(" ")[0]!]!;
      const c = cities.get(city) ?? { postcodes: 0, addresses: 0, affected: 0 };
      const mine = rows.filter((a) => a.PostCode === r.pcds);
      c.postcodes++;
      c.addresses += mine.length;
      c.affected += mine.filter(affected).length;
      cities.set(city, c);
    }
    return [...cities.values()].sort((a, b) => a.postcodes - b.postcodes || a.addresses - b.addresses);
  }

  /** the hexagons' titles in one map figure, as numbers */
  function drawnBins(figureId: string): { postcodes: number; addresses: number; affected: number }[] {
    const figure = new RegExp(`<figure id="${figureId}"[\\s\\S]*?</figure>`).exec(html)?.[0] ?? "";
    const titles = [...figure.matchAll(/<g class="bins"[^>]*>([\s\S]*?)<\/g>/g)].flatMap((g) => [...g[1]!.matchAll(/<title>([^<]*)<\/title>/g)].map((t) => t[1]!));
    return titles
      .map((t) => {
        const withAddresses = /^(\d+) postcodes?, ([\d,]+) \w+ address(?:es)?: ([\d.]+)% .* \(([\d,]+)\)$/.exec(t);
        if (withAddresses) {
          const [, postcodes, addresses, share, affected] = withAddresses;
          const num = (s: string) => Number(s.replace(/,/g, ""));
          expect(share).toBe(((100 * num(affected!)) / num(addresses!)).toFixed(1));
          return { postcodes: num(postcodes!), addresses: num(addresses!), affected: num(affected!) };
        }
        const none = /^(\d+) postcodes?, no \w+ addresses$/.exec(t);
        if (!none) throw new Error(`unexpected hexagon title: ${t}`);
        return { postcodes: Number(none[1]), addresses: 0, affected: 0 };
      })
      .sort((a, b) => a.postcodes - b.postcodes || a.addresses - b.addresses);
  }

  it("runs and says which postcodes are not on the map", () => {
    expect(run.exitCode).toBe(0);
    expect(located()).toHaveLength(16);
    // CF10 1ZZ (placeholder), NR1 1ZZ (empty) and EH1 1YZ (not in the file)
    expect(html).toContain("3 postcodes of 19 are not on the map: not in --area-file, or it has no grid reference for them.");
    expect(html).toContain("16 postcodes on the map");
  });

  it("draws one hexagon per city whose figures equal the address files' (below superfast)", () => {
    const down = (r: Row) => (r.MaxPredictedDown === "" ? -1 : Number(r.MaxPredictedDown));
    const expected = expectedBins("broadband.csv", (r) => down(r) >= 0 && down(r) < 30);
    expect(expected).toHaveLength(6);
    expect(expected.some((c) => c.addresses > 0 && c.affected > 0)).toBe(true);
    expect(drawnBins("map-below-superfast")).toEqual(expected);
  });

  // the simulator serves the current 0/3/4 scale: good is 4 (Likely)
  it("draws the same hexagons for indoor mobile: no provider good for indoor voice", () => {
    const providers = ["ProvA", "ProvB", "ProvC", "ProvD"];
    const expected = expectedBins("mobile.csv", (r) => providers.every((p) => r[`${p}VoiceIndoor`] !== "" && Number(r[`${p}VoiceIndoor`]) < 4));
    expect(drawnBins("map-voice-notspots")).toEqual(expected);
  });

  it("writes postcodes.geojson: valid RFC 7946 points at exactly the area file's coordinates", () => {
    const geo = JSON.parse(readFileSync(join(dir, "out", "postcodes.geojson"), "utf8")) as {
      type: string;
      features: { type: string; geometry: { type: string; coordinates: number[] }; properties: Record<string, unknown> }[];
    };
    expect(geo.type).toBe("FeatureCollection");
    // the attribution as a sentence, on the collection (a foreign member RFC 7946 allows)
    expect((geo as unknown as { attribution: string }).attribution).toMatch(/^Source: Ofcom\. .*\.$/);
    const byPostcode = new Map(geo.features.map((f) => [f.properties.PostCode as string, f]));
    expect([...byPostcode.keys()].sort()).toEqual(located().map((r) => r.pcds).sort());
    const postcodes = new Map(readCsv(join(dir, "out", "postcodes.csv")).map((r) => [r.PostCode!, r]));
    for (const r of located()) {
      const f = byPostcode.get(r.pcds!)!;
      expect(f.type).toBe("Feature");
      expect(f.geometry).toEqual({ type: "Point", coordinates: [Number(r.long), Number(r.lat)] });
      const csv = postcodes.get(r.pcds!)!;
      expect([f.properties.BroadbandStatus, f.properties.MobileStatus]).toEqual([csv.BroadbandStatus, csv.MobileStatus]);
      // an empty cell (no answer behind it) is null, never 0
      const count = (cell: string | undefined) => (cell === "" ? null : Number(cell));
      expect(f.properties.BroadbandAddresses).toBe(count(csv.BroadbandAddresses));
      expect(f.properties.BelowSuperfast).toBe(count(csv.BelowSuperfast));
      expect(f.properties.ProvBIndoorVoiceNotspots).toBe(count(csv.ProvBIndoorVoiceNotspots));
      // a share as a fraction of 1, as every column named Share
      const share = csv.BroadbandAddresses === "0" || csv.BroadbandAddresses === "" ? null : Math.round((Number(csv.BelowSuperfast) / Number(csv.BroadbandAddresses)) * 10_000) / 10_000;
      expect(f.properties.BelowSuperfastShare).toBe(share);
      // postcodes.csv carries the same coordinates
      expect([Number(csv.Longitude), Number(csv.Latitude)]).toEqual([Number(r.long), Number(r.lat)]);
    }
    expect(postcodes.get("CF10 1ZZ")!.Latitude).toBe("");
  });

  it("gives the workbook's Postcodes sheet the same Latitude and Longitude, as numbers", async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(join(dir, "out", "coverage.xlsx"));
    const sheet = book.getWorksheet("Postcodes")!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const [postcode, lat, lon] = ["Postcode", "Latitude", "Longitude"].map((h) => header.findIndex((c) => String(c).startsWith(h)) + 1);
    expect([lat, lon].every((i) => i! > 0)).toBe(true);
    const read = new Map<string, [unknown, unknown]>();
    sheet.eachRow((row, n) => {
      if (n > 1) read.set(String(row.getCell(postcode!).value), [row.getCell(lat!).value, row.getCell(lon!).value]);
    });
    for (const r of located()) expect(read.get(r.pcds!), r.pcds).toEqual([Number(r.lat), Number(r.long)]);
    expect(read.get("CF10 1ZZ")).toEqual([null, null]);
  });
});

describe("a report without coordinates", () => {
  it("says how many postcodes lack them and how to add them, and writes no postcodes.geojson", async () => {
    const dir = tempDir("pcc-map-none-");
    try {
      const input = writeCsv(dir, "in.csv", ["postcode", ...generatePostcodes(3, 4)]);
      const run = await runIn(dir, { in: input, simulate: true }, {}, { simulator: { seed: 3 } });
      expect(run.exitCode).toBe(0);
      const html = readFileSync(join(dir, "out", "report.html"), "utf8");
      expect(html).toContain("None of the 4 postcodes has coordinates, so there is no map. Give --area-file an extract of the ONS Postcode Directory");
      expect(html).not.toContain('<svg class="map"');
      expect(existsSync(join(dir, "out", "postcodes.geojson"))).toBe(false);
      expect(existsSync(join(dir, "out", "postcodes.csv"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("the map's size", () => {
  const points = (n: number): MapPoint[] =>
    generatePostcodes(7, n).map((p, i) => ({
      ...simulatedCoordinates(p)!,
      broadbandAddresses: 10 + (i % 30),
      belowSuperfast: i % 13,
      mobileAddresses: 10 + (i % 30),
      voiceNotspots: i % 7,
    }));
  const bytes = (n: number) => Buffer.byteLength(mapSection({ located: n, missing: 0, layout: layoutMap(points(n)) }, { broadband: true, mobile: true }, "3. Where"));

  it("is bounded by the page, not the list: 2,000 and 20,000 postcodes draw maps of similar bytes", () => {
    const small = bytes(2_000);
    const large = bytes(20_000);
    expect(large).toBeLessThan(small * 1.5);
    expect(large).toBeLessThan(400_000);
  });

  it("reads well inside one district: hexagons a few hundred metres across over the land", () => {
    const inDistrict = Array.from({ length: 60 }, (_, i) => ({
      latitude: 51.47 + (i % 10) * 0.004,
      longitude: -3.2 + Math.floor(i / 10) * 0.006,
      broadbandAddresses: 10,
      belowSuperfast: i % 4,
      mobileAddresses: 10,
      voiceNotspots: 0,
    }));
    const layout = layoutMap(inDistrict)!;
    expect(layout.bins.length).toBeGreaterThan(20);
    expect(layout.acrossKm).toBeLessThan(1);
    // all land here: the country's outline clipped to the map
    expect(layout.land).toMatch(/^M0,0/);
  });

  it("draws one postcode alone in one hexagon at the map's centre", () => {
    const layout = layoutMap([{ latitude: 57.48, longitude: -4.22, broadbandAddresses: 3, belowSuperfast: 1, mobileAddresses: 0, voiceNotspots: 0 }])!;
    expect(layout.bins).toHaveLength(1);
    expect(Math.abs(layout.bins[0]!.x - layout.width / 2)).toBeLessThan(layout.radius * 2);
    expect(Math.abs(layout.bins[0]!.y - layout.height / 2)).toBeLessThan(layout.radius * 2);
    expect(layout.bins[0]).toMatchObject({ postcodes: 1, broadbandAddresses: 3, belowSuperfast: 1 });
    expect(layoutMap([])).toBeNull();
  });

  it("colours by exact share classes", () => {
    expect([mapClass(0, 10), mapClass(9, 100), mapClass(10, 100), mapClass(1, 4), mapClass(3, 4), mapClass(10, 10)]).toEqual([0, 0, 1, 2, 4, 4]);
  });
});

describe("the simulator's area file", () => {
  it("is what input/sample-areas.csv holds for the demo's postcodes, all of them in Great Britain", async () => {
    const sample = fileURLToPath(new URL("../input/sample-postcodes.csv", import.meta.url));
    const committed = readFileSync(fileURLToPath(new URL("../input/sample-areas.csv", import.meta.url)), "utf8");
    const postcodes = (parse(readFileSync(sample), { bom: true, columns: true }) as Row[]).map((r) => r.postcode!);
    const { normalisePostcode } = await import("../src/contract/postcode.js");
    const valid = [...new Set(postcodes.map((p) => normalisePostcode(p)).flatMap((n) => (n.ok ? [n.compact] : [])))];
    expect(committed).toBe(simulatedAreaFile(valid).join("\r\n") + "\r\n");
    for (const r of readCsv(fileURLToPath(new URL("../input/sample-areas.csv", import.meta.url)))) {
      expect(Number(r.lat)).toBeGreaterThan(49.8);
      expect(Number(r.lat)).toBeLessThan(60.9);
      expect(Number(r.long)).toBeGreaterThan(-8.2);
      expect(Number(r.long)).toBeLessThan(1.8);
    }
  });
});
