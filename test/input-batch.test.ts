// Bad input through the whole batch, in-process, against the simulator over real HTTP: an unusable
// file exits 1 with the reader's message and sends nothing; a file with bad rows exits 0 with its
// rejects stored exactly; a postcode written several ways is looked up once per lookup.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSimulator, generatePostcodes, generatePostcode } from "../src/simulator/index.js";
import { storedInputRows, storedTable } from "./helpers/stored.js";
import { runIn, tempDir, type HarnessRun } from "./helpers/batch-harness.js";
import { spawnCli } from "./helpers/child-cli.js";

// keys look random, as real ones do: any 6-character run of a key is masked wherever it appears
const KEY = "kQx7Zt-9fP2mW-4rL8";
const SEED = 11;
const env = { COVERAGE_API_KEY: KEY };
const FIXTURES = fileURLToPath(new URL("./fixtures/bad-inputs/", import.meta.url));

const dirs: string[] = [];
const sims: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir("pcc-input-");
  dirs.push(d);
  return d;
}
async function sim() {
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY });
  sims.push(s);
  return s;
}

function messages(run: HarnessRun, level: string): string[] {
  return run.logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === level).map((l) => l.message);
}

/** No line of output looks like a stack frame. */
function expectNoStack(text: string): void {
  expect(text).not.toMatch(/^\s+at .+[:(]/m);
  expect(text).not.toMatch(/\b(?:TypeError|RangeError|SyntaxError|InputError|CsvError)\b/);
}

describe("unusable input files through the batch", () => {
  const cases: [string, string | undefined, string][] = [
    ["workbook.xlsx", undefined, 'line 1: this is an Excel workbook (.xlsx/.ods) or another zip file, not a CSV; save it as "CSV UTF-8 (Comma delimited)" and try again'],
    ["windows-1252.csv", undefined, 'line 3: not valid UTF-8 (byte 0xA3, "£" in Windows-1252); save it as "CSV UTF-8 (Comma delimited)" and try again'],
    ["unclosed-quote.csv", undefined, 'line 3: a quoted field starts in this row and is never closed (a " without its closing ")'],
    ["header-only.csv", undefined, 'line 1: there are no rows below the header ("id", "postcode", "notes")'],
    ["crlf.csv", "post_code", 'line 1: no column named "post_code"; the columns are "id", "postcode"'],
    [
      "swallowed-rows.csv",
      undefined,
      'lines 2-5: a quoted cell opens on line 2 and closes on line 5, and the lines it holds look like rows (line 3: "2,EC1A 1BB,ok"); a " is missing or extra: a " inside a cell is written "", and the cell itself quoted',
    ],
    [
      "wrong-column.csv",
      "site_name",
      'lines 2-5: none of the 4 row(s) has a valid UK postcode in column "site_name" (column 2); it holds "Head office", "Depot"; name the postcode column with --column NAME',
    ],
  ];
  for (const [name, column, message] of cases) {
    it(`${name}${column ? ` --column ${column}` : ""}: exit 1, the message, no request sent`, async () => {
      const s = await sim();
      const d = dir();
      const path = join(FIXTURES, name);
      const run = await runIn(d, { in: path, baseUrl: s.url, ...(column ? { column } : {}) }, env);
      expect(run.exitCode).toBe(1);
      expect(messages(run, "error")).toEqual([`${path}: ${message}`]);
      expectNoStack(run.logs.join("\n"));
      expect(s.counters.total).toBe(0);
      // the runs table is not scoped: read under this run, since no run read its input (a scope of everything needs one)
      const runs = await storedTable(join(d, "coverage.sqlite"), "runs", { runId: run.runId! });
      expect(runs.map((r) => ({ state: r.state, exit_code: r.exit_code, message: r.message }))).toEqual([{ state: "failed", exit_code: 1, message: `${path}: ${message}` }]);
    });
  }

  it("the CLI prints one line for an unusable file and exits 1, without a stack trace", async () => {
    const d = dir();
    const path = join(FIXTURES, "workbook.xlsx");
    const result = await spawnCli("batch", ["--in", path, "--simulate", "--db", join(d, "db.sqlite"), "--out", d, "--no-progress"]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: ${path}: line 1: this is an Excel workbook (.xlsx/.ods)`);
    expectNoStack(result.stderr + result.stdout);
  });
});

describe("a messy export with bad rows through the batch", () => {
  it("exits 0, stores each reject with its line, and looks each postcode up once", async () => {
    const pcs = generatePostcodes(SEED, 6);
    const [a, b, c, d4, e, f] = pcs as [string, string, string, string, string, string];
    const compact = (p: string) => p.replace(" ", "");
    // European Excel: BOM, semicolons, CRLF; a note with line breaks; the same postcodes written
    // several ways; blank and empty rows; a short row; invalid values.
    const lines = [
      "Kunde;Postcode;Notiz",
      `1;${a};first`,
      `2;${a.toLowerCase()};"two\r\nline note"`,
      `3;${compact(b)};x`,
      "",
      `4;${b.replace(" ", "\u00a0")};nbsp`,
      ";;",
      `5;not a postcode;y`,
      `6; ${c.toLowerCase()} ;z`,
      `7`,
      `8;"${d4}";quoted`,
      `9;;no postcode`,
      `10;${e};"a ""quoted"" note`,
      `with a break"`,
      `11;${f};end`,
      `12;${compact(f).toLowerCase()};dup`,
    ];
    const work = dir();
    const path = join(work, "export.csv");
    writeFileSync(path, "\ufeff" + lines.join("\r\n") + "\r\n");
    const s = await sim();
    const run = await runIn(work, { in: path, baseUrl: s.url }, env);

    expect(run.exitCode).toBe(0);
    expect(messages(run, "warn")).toContain(`${path}: read as semicolon-separated (detected from line 1)`);
    expect(run.counts).toMatchObject({ inputRows: 12, postcodes: 6, rejects: 3, failed: 0, pending: 0 });
    // six unique postcodes, two lookups each, however many times and ways they were written
    expect(s.counters.requests).toEqual({ broadband: 6, mobile: 6 });
    expect(s.counters.total).toBe(12);

    const dbPath = join(work, "coverage.sqlite");
    const stored = await storedInputRows(dbPath, run.runId!);
    expect(stored.map(([line, value, postcode, reason]) => ({ line, value, postcode, reason }))).toEqual([
      { line: 2, value: a, postcode: compact(a), reason: null },
      { line: 3, value: a.toLowerCase(), postcode: compact(a), reason: null },
      { line: 5, value: compact(b), postcode: compact(b), reason: null },
      { line: 7, value: b.replace(" ", "\u00a0"), postcode: compact(b), reason: null },
      { line: 9, value: "not a postcode", postcode: null, reason: "not a valid UK postcode" },
      { line: 10, value: ` ${c.toLowerCase()} `, postcode: compact(c), reason: null },
      { line: 11, value: "", postcode: null, reason: "the row has 1 cell(s) and no Postcode cell (column 2)" },
      { line: 12, value: d4, postcode: compact(d4), reason: null },
      { line: 13, value: "", postcode: null, reason: "empty postcode" },
      { line: 14, value: e, postcode: compact(e), reason: null },
      { line: 16, value: f, postcode: compact(f), reason: null },
      { line: 17, value: compact(f).toLowerCase(), postcode: compact(f), reason: null },
    ]);
    const cells = stored.filter(([line]) => line === 3 || line === 14).map(([, , , , cells]) => cells);
    expect(cells.map((c) => JSON.parse(c) as string[])).toEqual([
      ["2", a.toLowerCase(), "two\r\nline note"],
      ["10", e, 'a "quoted" note\r\nwith a break'],
    ]);
    // every unique postcode has its final answer for both lookups
    const answers = await storedTable(dbPath, "postcodes");
    const answered = new Map<unknown, number>();
    for (const l of answers) answered.set(l.postcode, (answered.get(l.postcode) ?? 0) + 1);
    expect([...answered].map(([postcode, n]) => ({ postcode, n })).sort((x, y) => String(x.postcode).localeCompare(String(y.postcode)))).toEqual(
      pcs.map((p) => ({ postcode: compact(p), n: 2 })).sort((x, y) => x.postcode.localeCompare(y.postcode)),
    );
    const known = pcs.filter((p) => generatePostcode(SEED, p) !== null).length;
    expect(answers.filter((l) => l.status === "ok")).toHaveLength(known * 2);
  });

  it("reads standard input (--in -) with the same rules", async () => {
    const pcs = generatePostcodes(SEED, 3);
    const s = await sim();
    const stdin = Readable.from([Buffer.from(`postcode\n${pcs[0]}\n\n${pcs[1]!.toLowerCase()}\nnope\n${pcs[0]!.replace(" ", "")}\n${pcs[2]}\n`)]);
    const d = dir();
    const run = await runIn(d, { in: "-", baseUrl: s.url }, env, { stdin });
    expect(run.exitCode).toBe(0);
    expect(run.counts).toMatchObject({ inputRows: 5, postcodes: 3, rejects: 1 });
    expect(s.counters.total).toBe(6);
    const rejected = (await storedInputRows(join(d, "coverage.sqlite"), run.runId!)).filter(([, , , reason]) => reason !== null);
    expect(rejected.map(([line, , , reason]) => ({ line, reason }))).toEqual([{ line: 5, reason: "not a valid UK postcode" }]);
  });
});
