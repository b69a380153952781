// The soak's input file: generated postcodes spelled the ways real lists spell them, with invalid
// values and repeats mixed in. Pure: the same seed gives the same file.
import { isValid, toNormalised } from "postcode";
import { stringify } from "csv-stringify/sync";
import { generatePostcodes } from "../src/simulator/index.js";
import { rngFor, type Rng } from "../src/simulator/hash.js";

export interface SoakInputShape {
  rows: number;
  invalidShare: number;
  duplicateShare: number;
}

export interface SoakInput {
  /** the whole CSV text, header included */
  csv: string;
  header: string[];
  rows: number;
  invalid: number;
  /** rows repeating an earlier postcode (in another spelling) */
  duplicates: number;
  /** the distinct valid postcodes, compact upper case, in first-seen order */
  unique: string[];
}

/** Values people put in a postcode column that are not postcodes (some look like formulas). */
const JUNK = ["n/a", "unknown", "TBC", "#N/A", "=SUM(A1:A9)", "-", "+44 20 7946 0000", "@home", "see notes", "0", ""];
/** Extra columns, so that enriched.csv has to carry quoting and non-ASCII text through unchanged. */
const SITES = ["Depot", "Site, North", 'Unit "B"', "Caffi Ŵyn", "  padded  ", "=HYPERLINK(\"x\")"];

export function buildSoakInput(seed: string, shape: SoakInputShape): SoakInput {
  const rng = rngFor(seed, "soak-input");
  const invalid = Math.round(shape.rows * shape.invalidShare);
  const duplicates = Math.round(shape.rows * shape.duplicateShare);
  const uniqueCount = shape.rows - invalid - duplicates;
  if (uniqueCount < 1) throw new RangeError("soak input: invalid and duplicate shares leave no unique postcodes");
  const pool = generatePostcodes(`soak-${seed}`, uniqueCount);

  const kinds = shuffle(rng, [
    ...Array<"unique">(uniqueCount).fill("unique"),
    ...Array<"duplicate">(duplicates).fill("duplicate"),
    ...Array<"invalid">(invalid).fill("invalid"),
  ]);
  // A repeat needs something to repeat: the first row is always a new postcode.
  const firstUnique = kinds.indexOf("unique");
  [kinds[0], kinds[firstUnique]] = [kinds[firstUnique]!, kinds[0]!];

  const header = ["ref", "Postcode", "site"];
  const records: string[][] = [header];
  const seen: string[] = [];
  let next = 0;
  kinds.forEach((kind, i) => {
    let value: string;
    if (kind === "unique") {
      const display = pool[next++]!;
      seen.push(display);
      value = respell(rng, display);
    } else if (kind === "duplicate") {
      value = respell(rng, rng.pick(seen));
    } else {
      value = invalidValue(rng, rng.pick(pool));
    }
    if (kind !== "invalid" && compactOf(value) === null) throw new Error(`soak input: respelled "${value}" is not valid`);
    records.push([`R${String(i + 1).padStart(5, "0")}`, value, rng.pick(SITES)]);
  });
  return {
    csv: stringify(records),
    header,
    rows: shape.rows,
    invalid,
    duplicates,
    unique: seen.map((d) => d.replace(" ", "")),
  };
}

/** `SW1A 2AA` as a person or another tool might have typed it. */
export function respell(rng: Rng, display: string): string {
  const [outward, inward] = display.split(" ") as [string, string];
  switch (rng.int(0, 7)) {
    case 0:
      return display.toLowerCase();
    case 1:
      return outward + inward;
    case 2:
      return `${outward}   ${inward}`;
    case 3:
      return ` ${display.toLowerCase()} `;
    case 4:
      return `${outward}\t${inward}`;
    case 5:
      return [...display].map((c) => (rng.chance(0.5) ? c.toLowerCase() : c)).join("");
    default:
      return display;
  }
}

/** Something that is not a valid postcode (checked with the `postcode` package, as the batch reads it). */
export function invalidValue(rng: Rng, display: string): string {
  for (;;) {
    let v: string;
    switch (rng.int(0, 3)) {
      case 0:
        v = display.slice(0, -1); // cut short
        break;
      case 1:
        v = display + rng.pick(["A", "9", "Z"]); // one too many
        break;
      case 2:
        v = String(rng.int(10_000, 99_999)); // a number
        break;
      default:
        v = rng.pick(JUNK);
    }
    if (!looksValid(v)) return v;
  }
}

/** Whether any reasonable reading of v (trimmed, spaces squeezed or removed) is a valid postcode. */
export function looksValid(v: string): boolean {
  const squeezed = v.trim().replace(/\s+/g, " ");
  return squeezed.length > 0 && (isValid(squeezed) || isValid(squeezed.replace(/ /g, "")));
}

/** The compact form the API is asked for, or null. */
export function compactOf(v: string): string | null {
  const squeezed = v.trim().replace(/\s+/g, " ");
  const valid = isValid(squeezed) ? squeezed : isValid(squeezed.replace(/ /g, "")) ? squeezed.replace(/ /g, "") : null;
  if (valid === null) return null;
  return toNormalised(valid)?.replace(" ", "") ?? null;
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
