// Plausible coordinates for the simulator's postcodes, so that the demo draws a map: each postcode
// area at its real main town (the table below: rounded public facts, not ONS data), each district
// scattered around it and each postcode around its district, deterministically (the same postcode
// always lands in the same place). An area file in the ONS directory's format (`pcds`, `lat`,
// `long`, every cell quoted) carries them to --area-file.
import { compactPostcode, displayPostcode } from "../contract/postcode.js";
import { rngFor } from "./hash.js";

/** Latitude and longitude of each postcode area's main town (WGS84, to about 1 km). */
export const AREA_CENTRES: Readonly<Record<string, readonly [number, number]>> = {
  AB: [57.15, -2.11], AL: [51.75, -0.34], B: [52.48, -1.9], BA: [51.38, -2.36], BB: [53.75, -2.48], BD: [53.79, -1.75],
  BH: [50.72, -1.88], BL: [53.58, -2.43], BN: [50.83, -0.14], BR: [51.4, 0.02], BS: [51.45, -2.59], CA: [54.89, -2.93],
  CB: [52.21, 0.12], CF: [51.48, -3.18], CH: [53.19, -2.89], CM: [51.74, 0.47], CO: [51.89, 0.9], CR: [51.37, -0.1],
  CT: [51.28, 1.08], CV: [52.41, -1.51], CW: [53.1, -2.44], DA: [51.45, 0.21], DD: [56.46, -2.97], DE: [52.92, -1.48],
  DG: [55.07, -3.61], DH: [54.78, -1.57], DL: [54.52, -1.55], DN: [53.52, -1.13], DT: [50.71, -2.44], DY: [52.51, -2.09],
  E: [51.53, -0.05], EC: [51.52, -0.09], EH: [55.95, -3.19], EN: [51.65, -0.08], EX: [50.72, -3.53], FK: [56.0, -3.78],
  FY: [53.82, -3.05], G: [55.86, -4.25], GL: [51.86, -2.24], GU: [51.24, -0.57], HA: [51.58, -0.34], HD: [53.65, -1.78],
  HG: [53.99, -1.54], HP: [51.75, -0.47], HR: [52.06, -2.72], HU: [53.74, -0.33], HX: [53.72, -1.86], IG: [51.56, 0.07],
  IP: [52.06, 1.16], IV: [57.48, -4.22], KA: [55.61, -4.5], KT: [51.41, -0.3], KW: [58.44, -3.09], KY: [56.11, -3.16],
  L: [53.41, -2.98], LA: [54.05, -2.8], LD: [52.24, -3.38], LE: [52.64, -1.13], LL: [53.32, -3.83], LN: [53.23, -0.54],
  LS: [53.8, -1.55], LU: [51.88, -0.42], M: [53.48, -2.24], ME: [51.39, 0.5], MK: [52.04, -0.76], ML: [55.79, -3.99],
  N: [51.57, -0.11], NE: [54.98, -1.62], NG: [52.95, -1.15], NN: [52.24, -0.9], NP: [51.58, -3.0], NR: [52.63, 1.3],
  NW: [51.55, -0.2], OL: [53.54, -2.12], OX: [51.75, -1.26], PA: [55.85, -4.42], PE: [52.57, -0.24], PH: [56.4, -3.44],
  PL: [50.38, -4.14], PO: [50.82, -1.09], PR: [53.76, -2.7], RG: [51.45, -0.97], RH: [51.24, -0.17], RM: [51.58, 0.18],
  S: [53.38, -1.47], SA: [51.62, -3.94], SE: [51.47, -0.05], SG: [51.9, -0.2], SK: [53.41, -2.15], SL: [51.51, -0.59],
  SM: [51.36, -0.19], SN: [51.56, -1.78], SO: [50.91, -1.4], SP: [51.07, -1.79], SR: [54.91, -1.38], SS: [51.54, 0.71],
  ST: [53.0, -2.18], SW: [51.46, -0.17], SY: [52.71, -2.75], TA: [51.02, -3.1], TD: [55.62, -2.81], TF: [52.68, -2.45],
  TN: [51.2, 0.27], TQ: [50.46, -3.53], TR: [50.26, -5.05], TS: [54.57, -1.23], TW: [51.45, -0.33], UB: [51.51, -0.38],
  W: [51.51, -0.2], WA: [53.39, -2.59], WC: [51.52, -0.12], WD: [51.66, -0.4], WF: [53.68, -1.5], WN: [53.55, -2.63],
  WR: [52.19, -2.22], WS: [52.59, -1.98], WV: [52.59, -2.13], YO: [53.96, -1.08],
};

/** Districts spread further in the large rural areas of the Highlands, Wales and the South West. */
const WIDE = new Set(["AB", "DG", "IV", "KW", "LD", "LL", "PA", "PH", "SY", "TD", "TR", "EX", "LA", "CA"]);
const LONDON = new Set(["E", "EC", "N", "NW", "SE", "SW", "W", "WC"]);

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** The postcode's simulated latitude and longitude; null for an invalid postcode or an area not in the table. */
export function simulatedCoordinates(postcode: string): { latitude: number; longitude: number } | null {
  const compact = compactPostcode(postcode);
  if (compact === null) return null;
  const outward = compact.slice(0, -3);
  const area = /^[A-Z]+/.exec(outward)?.[0] ?? "";
  const centre = AREA_CENTRES[area];
  if (!centre) return null;
  const spread = WIDE.has(area) ? 0.35 : LONDON.has(area) ? 0.04 : 0.12;
  const district = rngFor("places", outward);
  const unit = rngFor("places", compact);
  // degrees of longitude are shorter in the north: scale so that the scatter is round on the ground
  const lonScale = 1 / Math.cos((centre[0] * Math.PI) / 180);
  const latitude = centre[0] + (district.next() - 0.5) * spread + (unit.next() - 0.5) * 0.02;
  const longitude = centre[1] + ((district.next() - 0.5) * spread + (unit.next() - 0.5) * 0.02) * lonScale;
  return { latitude: round6(latitude), longitude: round6(longitude) };
}

/** An area file for these postcodes, lines in the ONS directory's form: `"pcds","lat","long"`; areas not in the table are left out. */
export function simulatedAreaFile(postcodes: Iterable<string>): string[] {
  const lines = [`"pcds","lat","long"`];
  for (const p of postcodes) {
    const compact = compactPostcode(p);
    const at = simulatedCoordinates(p);
    if (compact && at) lines.push(`"${displayPostcode(compact)}","${at.latitude.toFixed(6)}","${at.longitude.toFixed(6)}"`);
  }
  return lines;
}
