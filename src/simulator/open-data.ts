// The simulator's own open data, in Ofcom's published layout (docs/open-data.md): per postcode
// area one all-premises and one residential CSV (BOM, CRLF, the 2026 header verbatim), zipped, in
// a zip, as the July 2025 release came. Every figure is computed from the simulated addresses of
// the postcode (MaxPredictedDown and MaxPredictedUp), so the cross-check against the simulated API
// agrees; the ~3% of postcodes the simulator does not know are absent, as postcodes without
// premises are from Ofcom's files. Residential premises: the addresses whose UPRN does not end in 0.
import { strToU8, zipSync, type Zippable } from "fflate";
import { PUBLISHED_HEADER_2026 } from "../contract/open-data.js";
import { compactPostcode, displayPostcode } from "../contract/postcode.js";
import { DEFAULT_PROVIDERS } from "../contract/fields.js";
import { generateCompact, type SimAddress } from "./data.js";

/** The data month a simulated release publishes: release 1 is January 2026, each later one six months on. */
export function simulatedDataMonth(release: number): string {
  const months = 2026 * 12 + (release - 1) * 6;
  return `${Math.floor(months / 12)}${String((months % 12) + 1).padStart(2, "0")}`;
}

const pct = (k: number, n: number) => ((100 * k) / n).toFixed(1);

/** One postcode's row under PUBLISHED_HEADER_2026, from its addresses; null without any. */
export function openDataRow(compact: string, addresses: readonly SimAddress[]): string[] | null {
  const n = addresses.length;
  if (n === 0) return null;
  const downs = addresses.map((a) => a.speeds.MaxPredictedDown);
  const count = (when: (d: number, i: number) => boolean) => downs.filter(when).length;
  const has = (d: number) => d >= 0;
  const band = (from: number, to: number) => pct(count((d) => has(d) && d >= from && d < to), n);
  const atLeast = (x: number) => pct(count((d) => d >= x), n);
  const below = (x: number) => pct(count((d) => !has(d) || d < x), n);
  const decent = count((d, i) => d >= 10 && addresses[i]!.speeds.MaxPredictedUp >= 1);
  return [
    compact,
    displayPostcode(compact),
    /^[A-Z]{1,2}/.exec(compact)![0],
    band(30, 300),
    band(300, Infinity),
    band(0, 2),
    band(2, 5),
    band(5, 10),
    band(10, 30),
    atLeast(30),
    atLeast(100),
    atLeast(300),
    below(2),
    below(5),
    below(10),
    below(30),
    atLeast(1000),
    pct(n - decent, n),
    atLeast(30),
    "0.0",
  ];
}

const csvFile = (rows: string[][]) => strToU8("\uFEFF" + [PUBLISHED_HEADER_2026.join(","), ...rows.map((r) => r.join(","))].join("\r\n") + "\r\n");

/**
 * The archive as a download of the release would be, for the given postcodes (any spelling; the
 * invalid ones are left out): its file name and bytes. Bytes are the same for the same input.
 */
export function simulatedOpenDataArchive(
  seed: number | string,
  postcodes: Iterable<string>,
  release = 1,
  providers: readonly string[] = DEFAULT_PROVIDERS,
): { name: string; bytes: Uint8Array } {
  const month = simulatedDataMonth(release);
  const byArea = new Map<string, { all: string[][]; residential: string[][] }>();
  const seen = new Set<string>();
  for (const raw of postcodes) {
    const compact = compactPostcode(raw);
    if (compact === null || seen.has(compact)) continue;
    seen.add(compact);
    const sim = generateCompact(String(seed), compact, providers, release);
    if (!sim) continue;
    const area = /^[A-Z]{1,2}/.exec(compact)![0];
    const files = byArea.get(area) ?? { all: [], residential: [] };
    byArea.set(area, files);
    const all = openDataRow(compact, sim.addresses);
    const residential = openDataRow(compact, sim.addresses.filter((a) => a.UPRN % 10 !== 0));
    if (all) files.all.push(all);
    if (residential) files.residential.push(residential);
  }
  // a fixed time: the same postcodes give the same bytes, so a re-published archive is not re-imported
  const mtime = new Date("2026-01-01T00:00:00Z");
  const inner: Zippable = {};
  for (const [area, files] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) {
    inner[`postcode_files/${month}_fixed_pc_coverage_r01_${area}.csv`] = csvFile(files.all.sort((a, b) => a[0]!.localeCompare(b[0]!)));
    inner[`postcode_res_files/${month}_fixed_pc_coverage_res_r01_${area}.csv`] = csvFile(files.residential.sort((a, b) => a[0]!.localeCompare(b[0]!)));
  }
  const innerZip = zipSync(inner, { level: 6, mtime });
  const bytes = zipSync({ [`${month}_fixed_coverage_r01/${month}_fixed_pc_coverage_r01.zip`]: [innerZip, { level: 0 }] }, { mtime });
  return { name: `${month}_fixed_broadband_coverage_r01.zip`, bytes };
}
