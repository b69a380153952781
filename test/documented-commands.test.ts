// The commands the README and docs/simulator.md give a new user, parsed out of them and run as
// written (through npm, with a shell) in a stand-in clone: a temporary folder whose package.json,
// src, input and node_modules are links to this checkout's, so what they write lands there. The
// only change made to them: the simulator's port 8787 becomes a free one. Every documented line of
// README.md and docs/ that redirects into a file is checked: no npm banner can reach the file, and
// the file each `npm run` line writes parses.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, test } from "vitest";
import { childOutput, ROOT } from "./helpers/child-cli.js";
import { storedTable } from "./helpers/stored.js";
import { buildConfig, SIMULATED_RATE } from "../src/cli/batch-config.js";
import { DEFAULT_RATE } from "../src/cli/batch-options.js";
import { DEFAULT_KEY } from "../src/simulator/options.js";

/** The indented command lines of a markdown file that start with `prefix` (an env assignment may come first). */
function documentedCommands(file: string, pattern: RegExp): string[] {
  return readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("    ") && pattern.test(line.trim()))
    .map((line) => line.trim());
}

/** README.md and every page of docs/: the pages a user reads. */
function userPages(): string[] {
  return ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
}

/** `> file` or `>> file` (not `2>&1`): the file a command line writes its standard output into. */
const REDIRECT = /(?:^|\s)(?:1)?>>?\s*([^\s&|;]+)/;

/** Every documented command line (indented, in README.md or docs/) that redirects into a file, with its page. */
function redirectingCommands(): { page: string; line: string; file: string }[] {
  return userPages().flatMap((page) =>
    documentedCommands(page, /(^|\s)(npm|npx|node|postcode-coverage)\s/)
      .map((line) => ({ page, line, file: REDIRECT.exec(line)?.[1] }))
      .filter((c): c is { page: string; line: string; file: string } => c.file !== undefined),
  );
}

/** `npm run` prints its own lines (`> pkg@version script`) to standard output unless silenced. */
function npmWritesItsBanner(line: string): boolean {
  return /\bnpm run\b/.test(line) && !/\bnpm run (-s|--silent)\b/.test(line);
}

/** `input` is a copy (a documented command may write into it), the rest links to this checkout. */
function standInClone(copyInput = false): string {
  const dir = mkdtempSync(join(tmpdir(), "pcc-clone-"));
  for (const name of ["package.json", "tsconfig.json", "src", "input", "node_modules"]) {
    if (name === "input" && copyInput) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
    else symlinkSync(join(ROOT, name), join(dir, name));
  }
  return dir;
}

/** Throws unless the text parses as the file's kind: every CSV row as wide as its header, JSON as JSON. */
function checkParses(file: string, text: string): void {
  expect(text.trim(), `${file} is empty`).not.toBe("");
  if (file.endsWith(".json")) JSON.parse(text);
  else if (file.endsWith(".csv")) {
    const rows = parse(text, { bom: true }) as string[][];
    const header = rows[0]!;
    expect(header.join(","), `${file}'s first line`).not.toMatch(/^\s*>/);
    expect(rows.every((r) => r.length === header.length), `every row of ${file} as wide as its header ${header.join(",")}`).toBe(true);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Only the variables a user's shell would have: no COVERAGE_* from the test's own environment. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("COVERAGE_") && !k.startsWith("npm_")) env[k] = v;
  return env;
}

/** Runs a line in sh (asynchronously: vitest's worker must keep answering while it runs). */
function runShell(line: string, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn("sh", ["-c", line], { cwd, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] });
  return childOutput(child).then(({ code, ...printed }) => ({ status: code, ...printed }));
}

const clones: string[] = [];
const started: ChildProcess[] = [];
afterAll(() => {
  // the simulator runs under npm in its own process group: end that group (only what this file started)
  for (const child of started) if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  for (const dir of clones) rmSync(dir, { recursive: true, force: true });
});

async function postcodesIn(dbPath: string): Promise<number> {
  return (await storedTable(dbPath, "postcodes")).filter((l) => l.lookup === "broadband").length;
}

describe("documented commands", () => {
  test("the README's trial of your own file runs against the bundled simulator, unpaced", async () => {
    const [line, ...more] = documentedCommands("README.md", /--simulate/);
    expect(more).toEqual([]);
    expect(line).toMatch(/^npm run batch -- --in your-postcodes\.csv --simulate /);
    const clone = standInClone();
    clones.push(clone);
    // a user's file: the sample's 300 postcodes and 100 more
    const sample = readFileSync(join(ROOT, "input/sample-postcodes.csv"), "utf8").trimEnd();
    const extra = Array.from({ length: 100 }, (_, i) => `X${i},extra,SW1A ${(i % 9) + 1}AA,`).join("\n");
    writeFileSync(join(clone, "your-postcodes.csv"), `${sample}\n${extra}\n`);
    const began = Date.now();
    const r = await runShell(line!, clone);
    const seconds = (Date.now() - began) / 1000;
    expect(r.stderr).not.toMatch(/Error|refused/);
    expect(r.status).toBe(0);
    expect(existsSync(join(clone, "trial/coverage.xlsx"))).toBe(true);
    expect(await postcodesIn(join(clone, "trial/coverage.sqlite"))).toBeGreaterThan(300);
    // paced at 100 a minute, 300+ postcodes would take over 3 minutes
    expect(seconds).toBeLessThan(60);
  }, 120_000);

  test("docs/simulator.md's simulator and the batch pointed at it, with the key it documents", async () => {
    const [serve, ...otherServes] = documentedCommands("docs/simulator.md", /^npm run simulate -- --port 8787$/);
    const [batch, ...otherBatches] = documentedCommands("docs/simulator.md", /^COVERAGE_API_KEY=\S+ npm run batch -- .*--base-url http:\/\/127\.0\.0\.1:8787/);
    expect(otherServes).toEqual([]);
    expect(otherBatches).toEqual([]);
    const port = String(await freePort());
    const clone = standInClone();
    clones.push(clone);
    const simulator = spawn("sh", ["-c", serve!.replace("8787", port)], { cwd: clone, env: userEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    started.push(simulator);
    let out = "";
    await new Promise<void>((resolve, reject) => {
      simulator.stdout!.setEncoding("utf8").on("data", (s: string) => {
        out += s;
        if (/^listening /m.test(out)) resolve();
      });
      simulator.once("exit", (code) => reject(new Error(`the simulator exited (${code}) before listening`)));
    });
    expect(out).toMatch(new RegExp(`^listening http://127\\.0\\.0\\.1:${port}`, "m"));
    const r = await runShell(batch!.replace("8787", port), clone);
    expect(r.stderr).not.toMatch(/characters long/);
    expect(r.status).toBe(0);
    expect(await postcodesIn(join(clone, "sim/coverage.sqlite"))).toBeGreaterThan(250);
  }, 120_000);
});

describe("documented commands that write a file", () => {
  test("no documented `npm run … > file` lets npm's banner into the file: `npm run -s` or the installed command", () => {
    const commands = redirectingCommands();
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((c) => npmWritesItsBanner(c.line)).map((c) => `${c.page}: ${c.line}`)).toEqual([]);
  });

  test("every documented `npm run` that redirects into a file writes one that parses", async () => {
    const runnable = redirectingCommands().filter((c) => /^npm run\b/.test(c.line));
    expect(runnable.length).toBeGreaterThan(0);
    for (const { page, line, file } of runnable) {
      const clone = standInClone(true);
      clones.push(clone);
      const r = await runShell(line, clone);
      expect(r.status, `${page}: ${line}\n${r.stderr}`).toBe(0);
      checkParses(file, readFileSync(join(clone, file), "utf8"));
    }
  }, 120_000);
});

describe("the export and its reading line", () => {
  test("the README's export and docs/scale-and-export.md's DuckDB line, as written, with nothing more installed", async () => {
    const [exportLine, ...moreExports] = documentedCommands("README.md", /^npm run export -- /);
    const [query, ...moreQueries] = documentedCommands("docs/scale-and-export.md", /^node -e "import\('@duckdb\/node-api'\)/);
    expect(moreExports).toEqual([]);
    expect(moreQueries).toEqual([]);
    const clone = standInClone();
    clones.push(clone);
    writeFileSync(join(clone, "in.csv"), "postcode\nSW1A 2AA\nCF10 1AA\nCF10 2AB\n");
    // the default database the export reads, filled by a simulated night
    const night = await runShell("npm run batch -- --in in.csv --simulate --quiet --no-progress", clone);
    expect(night.status).toBe(0);
    const exported = await runShell(exportLine!, clone);
    expect(exported.status, exported.stderr).toBe(0);
    const read = await runShell(query!, clone);
    expect(read.stderr).toBe("");
    expect(read.status).toBe(0);
    expect(read.stdout).toMatch(/│ (\d+\s+)?│ 'CF' │ '\d+'/);
    expect(read.stdout).toMatch(/'SW'/);
  }, 120_000);
});

describe("--simulate's pace", () => {
  test("unpaced unless --rate is given; a real run keeps the Basic plan's 100 a minute", () => {
    expect(buildConfig({ in: "x", simulate: true }, {}).rate).toBe(SIMULATED_RATE);
    expect(buildConfig({ in: "x", simulate: true, rate: "100" }, {}).rate).toBe(100);
    expect(buildConfig({ in: "x", baseUrl: "http://127.0.0.1:1" }, { COVERAGE_API_KEY: DEFAULT_KEY }).rate).toBe(DEFAULT_RATE);
    expect(DEFAULT_RATE).toBe(100);
  });
});
