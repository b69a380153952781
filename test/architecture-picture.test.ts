// docs/architecture.md's picture of the folders is the code's: each folder's imports, as the
// picture lists them, are exactly the folders its files import (errors.ts, which every folder may
// use, apart), every folder of src is in it, and each stands on a floor above what it imports.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { codeFiles } from "./helpers/comment-paths.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(ROOT, "src");

interface Floor {
  floor: number;
  imports: string[];
}

/** The picture's rows: folder → its floor and the folders it lists as imported. */
function picture(markdown: string): Map<string, Floor> {
  const lines = markdown.split("\n");
  const head = lines.findIndex((l) => /^floor\s+folder\s+imports\s+holds$/.test(l));
  const importsAt = lines[head]!.indexOf("imports");
  const holdsAt = lines[head]!.indexOf("holds");
  const rows: { folders: string[]; floor: number; imports: string }[] = [];
  for (const line of lines.slice(head + 1, lines.indexOf("```", head))) {
    const folders = line.slice(6, importsAt).trim();
    const imports = line.slice(importsAt, holdsAt).trim();
    if (folders) rows.push({ folders: folders.split(", "), floor: Number(line.slice(0, 6).trim()), imports });
    else rows.at(-1)!.imports += ` ${imports}`;
  }
  const out = new Map<string, Floor>();
  for (const r of rows) {
    const names = r.imports.replace(/\([^)]*\)/g, "").split(",").map((s) => s.trim()).filter((s) => s && s !== "nothing");
    for (const f of r.folders) out.set(f, { floor: r.floor, imports: names.sort() });
  }
  return out;
}

/** Each top-level part of src (a folder, or errors.ts) → the other parts its files import. */
function folderImports(): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const file of codeFiles(SRC)) {
    const from = relative(SRC, file).split("\\").join("/").split("/")[0]!;
    const set = out.get(from) ?? out.set(from, new Set()).get(from)!;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = relative(SRC, join(dirname(file), m[1]!)).split("\\").join("/");
      const part = target.split("/")[0]!.replace(/\.js$/, ".ts");
      if (!target.startsWith("..") && part !== from) set.add(part);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].filter((p) => p !== "errors.ts").sort()]));
}

describe("docs/architecture.md's picture", () => {
  const drawn = picture(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
  const code = folderImports();

  it("has every part of src, each with the imports its files have", () => {
    const parts = readdirSync(SRC).filter((n) => !n.endsWith(".d.ts"));
    expect([...drawn.keys()].sort()).toEqual(parts.sort());
    for (const [folder, { imports }] of drawn) expect(imports, `${folder}'s imports`).toEqual(code.get(folder) ?? []);
  });

  it("puts each folder above every folder it imports", () => {
    for (const [folder, { floor, imports }] of drawn)
      for (const to of imports) expect(floor, `${folder} (floor ${floor}) imports ${to}`).toBeGreaterThan(drawn.get(to)!.floor);
  });

  it("reads a picture's rows, continued lines and the words around the names", () => {
    const md = ["```", "floor  folder  imports       holds", "  2    a, b    c (types),    x", "                d             y", "  1    c       nothing       z", "```"].join("\n");
    expect([...picture(md)]).toEqual([
      ["a", { floor: 2, imports: ["c", "d"] }],
      ["b", { floor: 2, imports: ["c", "d"] }],
      ["c", { floor: 1, imports: [] }],
    ]);
  });
});
