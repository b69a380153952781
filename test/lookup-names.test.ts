// The lookup list (src/contract/lookups.ts) is the one place a lookup is named: code outside
// src/contract and the simulator asks a lookup's properties there (LOOKUP_SPECS[l].openData,
// .ratingScale, …) or keys its own table by Lookup, never compares a lookup with its name, so that a
// third lookup is one entry the compiler follows.
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOOKUPS } from "../src/contract/fields.js";
import { codeFiles } from "./helpers/comment-paths.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const NAMES = LOOKUPS.join("|");
/** `x === "mobile"`, `"broadband" != x`, `case "mobile":`, with any quote. */
const NAME_CHECK = new RegExp(`[!=]==?\\s*(["'\`])(?:${NAMES})\\1|(["'\`])(?:${NAMES})\\2\\s*[!=]==?|\\bcase\\s+(["'\`])(?:${NAMES})\\3\\s*:`);

/** Every line of the code below `folders` that compares a lookup with its name, as "file:line: text". */
function lookupNameChecks(root: string, folders: readonly string[], allowed: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of folders.flatMap((f) => codeFiles(join(root, f)))) {
    const where = relative(root, file).split("\\").join("/");
    if (allowed.some((a) => where.startsWith(a))) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (NAME_CHECK.test(line)) found.push(`${where}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe("a lookup's name", () => {
  it("is compared nowhere outside src/contract and the simulator", () => {
    expect(lookupNameChecks(ROOT, ["src", "bench", "soak"], ["src/contract/", "src/simulator/"])).toEqual([]);
  });

  it("is found however the comparison is spelled", () => {
    for (const line of ['l === "mobile"', "x !== 'broadband'", '"mobile" == l', "l != `broadband`", 'case "mobile":'])
      expect(NAME_CHECK.test(line), line).toBe(true);
    for (const line of ['l === "mobiles"', 'LOOKUP_SPECS[l].ratingScale', 'lookup: "mobile"', 'x === "mobile-scale"'])
      expect(NAME_CHECK.test(line), line).toBe(false);
  });
});
