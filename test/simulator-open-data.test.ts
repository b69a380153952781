// Issue 25, point 5: the simulator's open data in Ofcom's published layout, read with fflate's own
// unzip (not the importer's yauzl): a zip in a zip, one all-premises and one residential file per
// area, BOM, CRLF, the January 2026 header verbatim, shares computed from the simulated addresses.
import { strFromU8, unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { generatePostcode, simulatedOpenDataArchive } from "../src/simulator/index.js";

// copied from Ofcom's January 2026 files (docs/open-data.md)
const HEADER =
  "postcode,postcode_space,postcode area,% of premises with 30<300Mbit/s download speed,% of premises with >=300Mbit/s download speed,% of premises with 0<2Mbit/s download speed,% of premises with 2<5Mbit/s download speed,% of premises with 5<10Mbit/s download speed,% of premises with 10<30Mbit/s download speed,SFBB availability (% premises),UFBB (100Mbit/s) availability (% premises),UFBB availability (% premises),% of premises unable to receive 2Mbit/s,% of premises unable to receive 5Mbit/s,% of premises unable to receive 10Mbit/s,% of premises unable to receive 30Mbit/s,Gigabit availability (% premises),% of premises unable to receive decent broadband from fixed or FWA,% of premises with NGA,% of premises able to receive decent broadband from FWA";

describe("the simulator's open data", () => {
  it("is a zip in a zip of per-area CSVs with BOM, CRLF and the published header, figures from its addresses", () => {
    const postcodes = ["CR0 5BX", "cr05by", "SW1A 2AA", "B23 0NJ", "not a postcode"];
    const archive = simulatedOpenDataArchive(3, postcodes);
    expect(archive.name).toBe("202601_fixed_broadband_coverage_r01.zip");
    // the same postcodes, the same bytes (a republished archive is not imported again)
    expect(simulatedOpenDataArchive(3, [...postcodes].reverse()).bytes).toEqual(archive.bytes);
    const outer = unzipSync(archive.bytes);
    expect(Object.keys(outer)).toEqual(["202601_fixed_coverage_r01/202601_fixed_pc_coverage_r01.zip"]);
    const inner = unzipSync(outer["202601_fixed_coverage_r01/202601_fixed_pc_coverage_r01.zip"]!);
    const known = ["CR05BX", "CR05BY", "SW1A2AA", "B230NJ"].filter((p) => generatePostcode(3, p) !== null);
    const areas = [...new Set(known.map((p) => /^[A-Z]+/.exec(p)![0]))].sort();
    expect(Object.keys(inner).sort()).toEqual(
      areas.flatMap((a) => [`postcode_files/202601_fixed_pc_coverage_r01_${a}.csv`, `postcode_res_files/202601_fixed_pc_coverage_res_r01_${a}.csv`]).sort(),
    );
    const rows = new Map<string, string[]>();
    for (const a of areas) {
      const bytes = inner[`postcode_files/202601_fixed_pc_coverage_r01_${a}.csv`]!;
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = strFromU8(bytes.subarray(3));
      expect(text.startsWith(HEADER + "\r\n")).toBe(true);
      expect(text.endsWith("\r\n")).toBe(true);
      expect(text.replace(/\r\n/g, "")).not.toContain("\n");
      for (const line of text.split("\r\n").slice(1, -1)) rows.set(line.split(",")[0]!, line.split(","));
    }
    expect([...rows.keys()].sort()).toEqual([...known].sort());
    for (const p of known) {
      const downs = generatePostcode(3, p)!.addresses.map((a) => a.speeds.MaxPredictedDown);
      const share = (k: number) => (Math.round((1000 * k) / downs.length) / 10).toFixed(1);
      const row = rows.get(p)!;
      expect(row[1]).toBe(`${p.slice(0, -3)} ${p.slice(-3)}`);
      expect(row[9], `${p} SFBB`).toBe(share(downs.filter((d) => d >= 30).length));
      expect(row[16], `${p} gigabit`).toBe(share(downs.filter((d) => d >= 1000).length));
      expect(row[4], `${p} >=300 band`).toBe(share(downs.filter((d) => d >= 300).length));
    }
  });
});
