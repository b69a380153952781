// Issue 19, points 3, 4, 5, 7, 8 and 9: what a hostile night still broke, each against the simulator
// over loopback with real SQLite files.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { formatStatus } from "../src/cli/status-text.js";
import { openStore } from "../src/store/open-store.js";
import { storedTable } from "./helpers/stored.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { spawnCli } from "./helpers/child-cli.js";
import { openSync, closeSync, writeSync, statSync } from "node:fs";
import { PassThrough } from "node:stream";
import { writeSheet } from "../src/report/xlsx/workbook-sheet.js";
import { XlsxWriter } from "../src/report/xlsx/workbook-writer.js";

const KEY = "Hq3-vN8w-Xp2k-Lm5-Qt4";
const SEED = 7;
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function setUp(count = 6, simulator: Parameters<typeof startSimulator>[0] = {}) {
  const d = tempDir("pcc-night-");
  dirs.push(d);
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY, ...simulator });
  sims.push(s);
  const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, count)]);
  return { d, s, input, db: join(d, "coverage.sqlite") };
}

interface LogLine {
  level: string;
  message: string;
  exitCode?: number;
  stopReason?: string | null;
  event?: string;
}
const parse = (logs: string[]) => logs.map((l) => JSON.parse(l) as LogLine);

describe("19.4 the recorded exit is the real one", () => {
  it("a run whose reports fail records exit 1 in its row, status and the JSON summary, with stop reason `reports`", async () => {
    const { d, s, input, db } = await setUp();
    const file = join(d, "not-a-dir");
    writeFileSync(file, "x");
    const r = await runIn(d, { in: input, baseUrl: s.url, out: file }, env);
    expect(r.exitCode).toBe(1);
    const summary = parse(r.logs).find((l) => l.event === "summary")!;
    expect(summary).toMatchObject({ exitCode: 1, stopReason: "reports" });
    const store = await openStore(db, { readonly: true });
    try {
      const run = (await storedTable(store, "runs")).find((row) => row.id === r.runId)!;
      expect({ state: run.state, exit_code: run.exit_code, message: run.message }).toEqual({
        state: "completed",
        exit_code: 1,
        message: `reports not written: cannot write the reports to ${file}: a file is in the way`,
      });
      expect(formatStatus(await store.status.database(5, r.clock.now()), db)).toContain("completed, exit 1");
    } finally {
      await store.close();
    }
  });
});

describe("19.9 status of a running run", () => {
  it("shows the input and the counts as they stand, not the zeros of an unfinished row", async () => {
    const { d, s, input, db } = await setUp(6);
    const r = await runIn(d, { in: input, baseUrl: s.url }, env);
    expect(r.exitCode).toBe(0);
    // the row as a batch leaves it while fetching: created, counts not yet written
    const writer = new Database(db);
    writer.prepare("UPDATE runs SET state = 'running', ended_at = NULL, exit_code = NULL, input_rows = 0, postcodes = 0, rejects = 0, ok = 0, not_found = 0, failed = 0, pending = 0").run();
    writer.close();
    const store = await openStore(db, { readonly: true });
    try {
      const [run] = (await store.status.database(1, r.clock.now())).runs;
      // no batch holds the run's lease any more (it ended), so status calls the running row abandoned
      expect(run).toMatchObject({ state: "abandoned", input_rows: 6, postcodes: 6, rejects: 0 });
      expect(run!.ok + run!.not_found).toBe(12);
      expect(formatStatus(await store.status.database(1, r.clock.now()), db)).toContain(`input ${input}: 6 rows, 6 postcodes, 0 rejected`);
    } finally {
      await store.close();
    }
  });
});

/** Forwards to `target`, putting `insert` at the start of every address description of a 200 answer. */
async function echoingProxy(target: string, insert: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const up = http.request(new URL(req.url!, target), { headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (c: Buffer) => chunks.push(c));
      answer.on("end", () => {
        let body = Buffer.concat(chunks).toString("utf8");
        if (answer.statusCode === 200) body = body.replaceAll('"AddressShortDescription":"', `"AddressShortDescription":"${insert} `);
        const headers = { ...answer.headers, "content-length": String(Buffer.byteLength(body)) };
        res.writeHead(answer.statusCode!, headers);
        res.end(body);
      });
    });
    up.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe("19.8 the key in an answer", () => {
  it.each([
    ["the whole key", KEY],
    ["a 6-character run of it", KEY.slice(4, 11)],
  ])("is masked before the answer is stored: %s echoed by a gateway reaches neither the database nor the reports", async (_what, insert) => {
    const { d, s, input, db } = await setUp(4);
    const proxy = await echoingProxy(s.url, insert);
    try {
      const r = await runIn(d, { in: input, baseUrl: proxy.url }, env);
      expect(r.exitCode).toBe(0);
    } finally {
      await proxy.close();
    }
    const addresses = await storedTable(db, "broadband");
    expect(addresses.length).toBeGreaterThan(0);
    expect([...new Set(addresses.map((a) => String(a.AddressShortDescription).slice(0, 4)))]).toEqual(["*** "]);
    const files = [...readdirSync(d).map((f) => join(d, f)), ...readdirSync(join(d, "out")).map((f) => join(d, "out", f))];
    for (const f of files) if (!f.endsWith("out")) expect([f, readFileSync(f).includes(insert)]).toEqual([f, false]);
  });
});

describe("19.5 failures are one line naming their cause", () => {
  it("a workbook whose file fails mid-sheet (a full disk) rejects with that cause and leaves the connection free", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (n INTEGER, s TEXT)");
    const insert = db.prepare("INSERT INTO t VALUES (?, ?)");
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(i, "x".repeat(40));
    })();
    db.exec("BEGIN");
    // nobody reads `out`: it fills, the writer waits for a drain that a full disk never gives
    const out = new PassThrough();
    const workbook = new XlsxWriter(out);
    const rows = db.prepare("SELECT n, s FROM t").raw(true).iterate() as Iterable<unknown[]>;
    const writing = writeSheet(workbook, { name: "Rows", columns: [{ heading: "n", width: 8 }, { heading: "s", width: 40 }], rows });
    setImmediate(() => out.destroy(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })));
    await expect(writing).rejects.toThrow("ENOSPC: no space left on device");
    // on main the sheet never returns and its iterator keeps the connection busy: COMMIT fails
    expect(() => db.exec("COMMIT")).not.toThrow();
    db.close();
  }, 20_000);

  it("a damaged database: batch, status, report and export each say so in one line naming it, without a stack", async () => {
    const { d, s, input, db } = await setUp(30);
    // the CLIs below run as children, on the wall clock: so do the batches
    const r = await runIn(d, { in: input, baseUrl: s.url }, env, { clock: instantSleepClock });
    expect(r.exitCode).toBe(0);
    // overwrite every page past the first third (the answers) with garbage
    const size = statSync(db).size;
    const fd = openSync(db, "r+");
    for (let page = Math.floor(size / 4096 / 3); page < size / 4096 - 1; page++) writeSync(fd, Buffer.alloc(256, 0xde), 0, 256, page * 4096);
    closeSync(fd);
    const again = await runIn(d, { in: input, baseUrl: s.url }, env, { clock: instantSleepClock });
    expect(again.exitCode).toBe(1);
    const errors = parse(again.logs).filter((l) => l.level === "error").map((l) => l.message);
    expect(errors[0]).toBe(`database ${db}: database disk image is malformed`);
    for (const [script, args] of [
      ["report", ["--db", db, "--out", join(d, "r")]],
      ["export", ["--db", db, "--out", join(d, "e"), "--all"]],
      ["status", ["--db", db]],
    ] as const) {
      const cli = await spawnCli(script, [...args]).done;
      expect([script, cli.code]).toEqual([script, 1]);
      const lines = cli.stderr.trim().split("\n").filter((l) => l.startsWith("error:"));
      expect([script, lines]).toEqual([script, [`error: ${script === "status" ? "" : "cannot read "}${db}: database disk image is malformed`]]);
      expect(cli.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});

describe("19.7 an input the report set cannot hold", () => {
  it("more columns than the reports hold is refused before the first request, naming the file and the count", async () => {
    const { d, s } = await setUp(0);
    const header = ["postcode", ...Array.from({ length: 2000 }, (_, i) => `c${i}`)];
    const input = writeCsv(d, "wide.csv", [header.join(","), ...generatePostcodes(SEED, 3).map((p) => [p, ...Array<string>(2000).fill("x")].join(","))]);
    const r = await runIn(d, { in: input, baseUrl: s.url }, env);
    expect(r.exitCode).toBe(1);
    expect(parse(r.logs).filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      `${input}: 2,001 columns; the reports hold at most 2,000 (keep the columns you need, or give only the postcode column)`,
    ]);
    // on main: every postcode fetched, then the reports fail ("too many columns in result set")
    expect(s.counters.total).toBe(0);
  });

  it("a cell larger than a worksheet cell is refused, naming its line and column", async () => {
    const { d, s } = await setUp(0);
    const [a, b] = generatePostcodes(SEED, 2);
    const input = writeCsv(d, "long.csv", ["postcode,note", `${a},short`, `${b},${"y".repeat(40_000)}`]);
    const r = await runIn(d, { in: input, baseUrl: s.url }, env);
    expect(r.exitCode).toBe(1);
    expect(parse(r.logs).filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      `${input} line 3, column 2: a cell of 40,000 characters; a worksheet cell holds at most 32,767`,
    ]);
    expect(s.counters.total).toBe(0);
  });
});
