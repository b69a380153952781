// The imports between src's files, as docs/architecture.md draws them: no import circle anywhere
// (type-only imports count: a circle of types is still a knot to untie when a file moves), each
// folder imports only the folders below it, and inside src/report the rooms keep their order:
// the base rooms (the set's files, the reports' words) import no other room, figures are computed
// in the order the data takes (scale, changes, groups, estimates, summary), then rendered (csv, xlsx, html,
// geojson, json), no two rooms import each other by any path, and no room reaches back to the
// entry (report/index.ts, report/check-options.ts).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** file (relative to src, "/"-separated) → the src files it imports relatively. */
type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every relative import, export-from and dynamic import of every .ts file below `root`. */
export function importGraph(root: string): Graph {
  const files = sourceFiles(root).map((f) => relative(root, f).split("\\").join("/"));
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | null => {
    const target = join(dirname(from), spec).split("\\").join("/").replace(/\.js$/, ".ts");
    for (const c of [target, `${target.replace(/\.ts$/, "")}/index.ts`]) if (known.has(c)) return c;
    return null;
  };
  const graph: Graph = new Map();
  for (const f of files) {
    const text = readFileSync(join(root, f), "utf8");
    const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
    graph.set(f, [...new Set(specs.map((s) => resolve(f, s)).filter((t): t is string => t !== null))]);
  }
  return graph;
}

/** The graph's circles (strongly connected parts of more than one file, or a file importing itself), each sorted. */
export function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      on.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
  }
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return found;
}

/** What each of src's folders (and errors.ts) may import besides itself and errors.ts: the arrows of docs/architecture.md. */
export const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  contract: [],
  figures: ["contract"],
  input: ["contract", "figures"],
  // the planner decides over the store's interface (store.plan), never its SQL: types only
  plan: ["contract", "figures", "store"],
  fetch: ["contract", "figures"],
  store: ["contract", "figures"],
  // an output folder's one writer (its lock) and what a killed writer leaves there: the reports' and the export's
  outputs: ["contract", "figures", "store"],
  report: ["contract", "figures", "input", "plan", "fetch", "store", "outputs"],
  // the export reads --area-file as the reports do
  export: ["contract", "figures", "input", "plan", "fetch", "store", "outputs", "report"],
  pipeline: ["contract", "figures", "input", "plan", "fetch", "store", "outputs", "report", "export", "log", "watch"],
  cli: ["contract", "figures", "input", "plan", "fetch", "store", "outputs", "report", "export", "pipeline", "log", "watch", "simulator"],
  log: ["contract"],
  watch: ["contract"],
  simulator: ["contract"],
  "errors.ts": [],
};

const folderOf = (file: string) => file.split("/")[0]!;

/** Imports that break the folders' order, as "from → to" lines. */
export function layeringBreaks(graph: Graph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    const allowed = MAY_IMPORT[a];
    for (const to of targets) {
      const b = folderOf(to);
      if (b === a) continue;
      if (allowed === undefined) out.push(`${from} → ${to}: src/${a} is no folder docs/architecture.md names`);
      else if (b === "errors.ts" && a !== "errors.ts") continue;
      else if (!allowed.includes(b)) out.push(`${from} → ${to}: ${a} may import only ${allowed.length ? allowed.join(", ") : "nothing"}`);
    }
  }
  return out;
}

/** The rooms of src/report: figures computed, the renderers that write them, the base they all stand on. */
export const REPORT_ROOMS = {
  // in the order the data takes: a figure room imports only the figure rooms before it
  figures: ["scale", "changes", "groups", "estimates", "summary"],
  renderers: ["csv", "xlsx", "html", "geojson", "json"],
  // below every other room, so they import none: the report set's scope, files and fingerprint
  // (set), and the reports' words and number formats (words) every figure room and renderer says
  base: ["set", "words"],
} as const;
/** The entry: what the pipeline and the CLI import, and no room. */
export const REPORT_ENTRY = ["report/index.ts", "report/check-options.ts"];

const roomOf = (file: string): string | null => {
  const parts = file.split("/");
  return parts[0] === "report" && parts.length > 2 ? parts[1]! : null;
};

/** Breaks of the rooms' order inside src/report, as lines. */
export function roomBreaks(graph: Graph): string[] {
  const out: string[] = [];
  const known = new Set<string>(Object.values(REPORT_ROOMS).flat());
  const figures = new Set<string>(REPORT_ROOMS.figures);
  const renderers = new Set<string>(REPORT_ROOMS.renderers);
  const base = new Set<string>(REPORT_ROOMS.base);
  const figureOrder: readonly string[] = REPORT_ROOMS.figures;
  for (const [from, targets] of graph) {
    if (folderOf(from) !== "report") continue;
    const room = roomOf(from);
    if (room === null) {
      if (!REPORT_ENTRY.includes(from)) out.push(`${from}: a file loose at the top of src/report; it belongs in a room`);
      continue;
    }
    if (!known.has(room)) out.push(`${from}: report/${room}/ is a room the import test does not know (REPORT_ROOMS)`);
    for (const to of targets) {
      const into = roomOf(to);
      if (REPORT_ENTRY.includes(to)) out.push(`${from} → ${to}: a room never imports the report's entry`);
      else if (into === null || into === room) continue;
      else if (figures.has(room) && renderers.has(into)) out.push(`${from} → ${to}: figures (report/${room}/) never import a renderer (report/${into}/)`);
      else if (base.has(room)) out.push(`${from} → ${to}: report/${room}/ is below every room and imports none`);
      else if (figures.has(room) && figureOrder.indexOf(into) > figureOrder.indexOf(room))
        out.push(`${from} → ${to}: report/${room}/ comes before report/${into}/ in the figures' order (${figureOrder.join(", ")}) and never imports it`);
    }
  }
  for (const circle of circles(roomGraph(graph))) out.push(`report's rooms import each other: ${circle.join(" <-> ")}`);
  return out;
}

/** src/report's rooms as a graph of their own: a room → the rooms its files import. */
export function roomGraph(graph: Graph): Graph {
  const rooms: Graph = new Map();
  for (const [from, targets] of graph) {
    const room = roomOf(from);
    if (folderOf(from) !== "report" || room === null) continue;
    const into = targets.filter((t) => folderOf(t) === "report").map(roomOf).filter((r): r is string => r !== null && r !== room);
    rooms.set(room, [...new Set([...(rooms.get(room) ?? []), ...into])]);
  }
  return rooms;
}

describe("src's import graph", () => {
  const graph = importGraph(SRC);

  it("reads the imports, type-only ones and multi-line ones too", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("report/index.ts")).toContain("report/set/report-set.ts");
    expect(graph.get("cli/report.ts")).toContain("report/index.ts");
  });

  it("has no import circle", () => {
    const found = circles(graph).map((c) => c.join(" <-> "));
    expect(found, `import circles:\n${found.join("\n")}`).toEqual([]);
  });

  it("imports only down the folders' order (docs/architecture.md)", () => {
    const breaks = layeringBreaks(graph);
    expect(breaks, breaks.join("\n")).toEqual([]);
  });

  it("keeps src/report's rooms in order: no loose file, no room importing the entry, no figures importing a renderer, the base importing no room, no circle of rooms", () => {
    const breaks = roomBreaks(graph);
    expect(breaks, breaks.join("\n")).toEqual([]);
  });
});

describe("the import checks themselves", () => {
  it("find a circle, of types or of code, and a file importing itself", () => {
    const g: Graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
      ["e.ts", ["a.ts"]],
    ]);
    expect(circles(g)).toEqual([["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
  });

  it("find an import up the folders' order and from an unknown folder", () => {
    const g: Graph = new Map([
      ["store/x.ts", ["report/index.ts", "contract/f.ts", "errors.ts"]],
      ["simulator/s.ts", ["store/store.ts"]],
      ["errors.ts", ["contract/f.ts"]],
      ["novel/n.ts", ["contract/f.ts"]],
    ]);
    expect(layeringBreaks(g)).toEqual([
      "store/x.ts → report/index.ts: store may import only contract, figures",
      "simulator/s.ts → store/store.ts: simulator may import only contract",
      "errors.ts → contract/f.ts: errors.ts may import only nothing",
      "novel/n.ts → contract/f.ts: src/novel is no folder docs/architecture.md names",
    ]);
  });

  it("find a loose report file, a room importing the entry, figures importing a renderer, the base importing a room", () => {
    const g: Graph = new Map([
      ["report/loose.ts", []],
      ["report/summary/s.ts", ["report/index.ts", "report/csv/c.ts", "report/groups/g.ts"]],
      ["report/xlsx/w.ts", ["report/summary/s.ts"]],
      ["report/set/o.ts", ["report/summary/s.ts"]],
      ["report/words/l.ts", ["report/set/o.ts"]],
    ]);
    expect(roomBreaks(g)).toEqual([
      "report/loose.ts: a file loose at the top of src/report; it belongs in a room",
      "report/summary/s.ts → report/index.ts: a room never imports the report's entry",
      "report/summary/s.ts → report/csv/c.ts: figures (report/summary/) never import a renderer (report/csv/)",
      "report/set/o.ts → report/summary/s.ts: report/set/ is below every room and imports none",
      "report/words/l.ts → report/set/o.ts: report/words/ is below every room and imports none",
    ]);
  });

  it("find figure rooms importing back up the data's order, and rooms importing each other by a longer path", () => {
    const g: Graph = new Map([
      ["report/groups/g.ts", ["report/estimates/e.ts"]],
      ["report/estimates/e.ts", ["report/groups/types.ts"]],
      ["report/groups/types.ts", []],
      ["report/xlsx/x.ts", ["report/html/h.ts"]],
      ["report/html/h.ts", ["report/csv/c.ts"]],
      ["report/csv/c.ts", ["report/xlsx/cells.ts"]],
      ["report/xlsx/cells.ts", []],
    ]);
    expect(roomBreaks(g)).toEqual([
      "report/groups/g.ts → report/estimates/e.ts: report/groups/ comes before report/estimates/ in the figures' order (scale, changes, groups, estimates, summary) and never imports it",
      "report's rooms import each other: estimates <-> groups",
      "report's rooms import each other: csv <-> html <-> xlsx",
    ]);
  });
});
