// The commands as a user meets them: one-line errors, did-you-mean, --help and --version.
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unknownOption } from "../src/cli/run-cli.js";
import { optionsTable } from "../src/cli/options/options-doc.js";
import { spawnCli, ROOT } from "./helpers/child-cli.js";
import { tempDir } from "./helpers/batch-harness.js";
import { startSimulator } from "../src/simulator/index.js";

const KEY = "f3a9c1e07b5d4a2e9c8b7a6f5e4d3c2b";
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dir() {
  const d = tempDir("pcc-cli-");
  dirs.push(d);
  return d;
}
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

describe("unknown options", () => {
  it("names the option and suggests the closest one", () => {
    const known = ["in", "column", "db", "out", "rate", "retries", "key-file", "base-url"];
    expect(unknownOption(["--inn", "x"], known)).toBe("unknown option --inn; did you mean --in?");
    expect(unknownOption(["--rates=5"], known)).toBe("unknown option --rates; did you mean --rate?");
    expect(unknownOption(["--base-ur", "x"], known)).toBe("unknown option --base-ur; did you mean --base-url?");
    expect(unknownOption(["--zzzzzz"], known)).toBe("unknown option --zzzzzz");
    expect(unknownOption(["--in", "-", "--rate", "-5", "--no-column"], known)).toBeNull();
  });

  it("takes a long option given with one dash for the long option, not for single letters", () => {
    const known = ["in", "column", "db", "out", "rate", "retries", "key-file", "base-url", "help", "h"];
    expect(unknownOption(["-in", "x.csv"], known)).toBe("unknown option -in; did you mean --in?");
    expect(unknownOption(["-db=a.sqlite"], known)).toBe("unknown option -db; did you mean --db?");
    expect(unknownOption(["--in", "x.csv", "-base-url", "https://a"], known)).toBe("unknown option -base-url; did you mean --base-url?");
    expect(unknownOption(["-colum"], known)).toBe("unknown option -colum; did you mean --column?");
    expect(unknownOption(["-zzzzzz"], known)).toBe("unknown option -zzzzzz (long options start with --)");
    expect(unknownOption(["-h"], known)).toBeNull();
  });
});

describe("docs/options.md", () => {
  it("is generated from the option declarations and current (npm run options-table)", () => {
    const doc = readFileSync(join(ROOT, "docs/options.md"), "utf8");
    expect(doc).toBe(optionsTable());
    expect(doc).toContain("| `--outage-limit` | string | `15m` |  | how long an API outage may last");
    expect(doc).toContain("| `--base-url` | string |  | `COVERAGE_API_URL` |");
  });
});

describe("the commands as processes", () => {
  it("--version and --help print and exit 0 in every command, and never run it; --help ends with examples", async () => {
    const d = dir();
    const db = join(d, "coverage.sqlite");
    const optionsDoc = statSync(join(ROOT, "docs/options.md")).mtimeMs;
    const runs = (["batch", "report", "status", "export", "simulate", "options-table"] as const).flatMap((cli) => [
      spawnCli(cli, ["--version", "--in", join(d, "in.csv"), "--simulate", "--db", db]).done.then((r) => ({ cli, flag: "--version", r })),
      spawnCli(cli, ["--help"]).done.then((r) => ({ cli, flag: "--help", r })),
    ]);
    for (const { cli, flag, r } of await Promise.all(runs)) {
      expect(r.code, `${cli} ${flag}: ${r.stderr}`).toBe(0);
      if (flag === "--version") expect(r.stdout).toBe(`${VERSION}\n`);
      else {
        expect(r.stdout).toContain(`npm run ${cli} --`);
        // the last section: one or two command lines a user can copy, each with what it does
        expect(r.stdout, `${cli} --help`).toMatch(new RegExp(`\\nExamples:\\n(  npm run ${cli} --.*\\n(?: .*\\n)*){1,2}$`));
      }
    }
    // the batch did not run: no database was made; nor did options-table rewrite its file
    expect(existsSync(db)).toBe(false);
    expect(statSync(join(ROOT, "docs/options.md")).mtimeMs).toBe(optionsDoc);
  }, 60_000);

  it("configuration errors are one line, never echo a secret, and exit 1", async () => {
    const d = dir();
    const input = join(d, "in.csv");
    writeFileSync(input, "postcode\nSW1A 1AA\n");
    const base = ["--in", input, "--db", join(d, "coverage.sqlite"), "--out", join(d, "out")];
    const url = "https://api.example.com";
    const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
      ["typo", ["--inn", input], { COVERAGE_API_KEY: KEY }, /^error: unknown option --inn; did you mean --in\? \(npm run batch -- --help lists the options\)\n$/],
      ["one dash", ["-in", input], { COVERAGE_API_KEY: KEY }, /^error: unknown option -in; did you mean --in\? \(npm run batch -- --help lists the options\)\n$/],
      ["not a number", [...base, "--base-url", url, "--rate", "abc"], { COVERAGE_API_KEY: KEY }, /^error: --rate: expected a number, got "abc"/],
      ["missing key file", [...base, "--base-url", url, "--key-file", join(d, "nope.key")], {}, /^error: --key-file .*nope\.key: no such file/],
      // swapped: the key in COVERAGE_API_URL must not be printed
      ["swapped env", base, { COVERAGE_API_URL: KEY, COVERAGE_API_KEY: url }, /^error: COVERAGE_API_URL: not a valid value for --base-url: \*\*\* is not a URL \(value not shown\)/],
      ["CRLF key", [...base, "--base-url", url], { COVERAGE_API_KEY: `${KEY}\r` }, /^error: COVERAGE_API_KEY: the key contains a character that is not allowed in an HTTP header/],
      ["query in URL", [...base, "--base-url", `${url}/?x=1`], { COVERAGE_API_KEY: KEY }, /without \?query or #fragment/],
      ["empty fragment", [...base, "--base-url", `${url}/#`], { COVERAGE_API_KEY: KEY }, /without \?query or #fragment/],
      ["timeout too long", [...base, "--base-url", url, "--timeout", "3601"], { COVERAGE_API_KEY: KEY }, /--timeout: expected seconds from 1 to 3600, got 3601/],
      ["timeout too short", [...base, "--base-url", url, "--timeout", "0.5"], { COVERAGE_API_KEY: KEY }, /--timeout: expected seconds from 1 to 3600, got 0.5/],
      ["report typo", ["--rn", "3"], {}, /^error: unknown option --rn; did you mean --run\?/],
      ["repeated option", [...base, "--simulate", "--db", join(d, "other.sqlite"), "--log-format", "json"], {}, /"message":"--db given 2 times; give it once .*"stopReason":"config"/],
    ];
    const results = await Promise.all(
      cases.map(([name, args, env]) => spawnCli(name === "report typo" ? "report" : "batch", args, { env }).done),
    );
    results.forEach((r, i) => {
      const [name, , , pattern] = cases[i]!;
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toMatch(pattern);
      expect(r.stderr.trim().split("\n"), name).toHaveLength(1);
      for (let j = 0; j + 6 <= KEY.length; j++) expect(r.stderr, name).not.toContain(KEY.slice(j, j + 6));
    });
  });

  it("a key file others can read is warned about even with --quiet; errors are JSON with --log-format json", async () => {
    const d = dir();
    const keyFile = join(d, "api.key");
    writeFileSync(keyFile, KEY + "\n");
    chmodSync(keyFile, 0o644);
    const r = await spawnCli("batch", ["--in", join(d, "missing.csv"), "--db", join(d, "c.sqlite"), "--base-url", "https://api.example.com", "--key-file", keyFile, "--quiet", "--log-format", "json"]).done;
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n").map((l) => JSON.parse(l) as { level: string; message: string });
    expect(lines[0]).toMatchObject({ level: "warn", message: `--key-file ${keyFile} is readable by other users; chmod 600 it` });
    expect(lines.at(-1)).toMatchObject({ level: "error" });
    expect(lines.at(-1)!.message).toMatch(/cannot read .*missing\.csv: no such file/);
  });

  it("--db empty (an unset variable) or :memory: is refused in one line before any request, by every command that takes it", async () => {
    const d = dir();
    const input = join(d, "in.csv");
    writeFileSync(input, "postcode\nSW1A 1AA\n");
    const sim = await startSimulator({ port: 0, seed: 3, key: KEY });
    try {
      for (const db of ["", ":memory:"]) {
        const runs = {
          batch: spawnCli("batch", ["--in", input, "--db", db, "--out", join(d, "out"), "--base-url", sim.url], { env: { COVERAGE_API_KEY: KEY } }).done,
          report: spawnCli("report", ["--db", db, "--out", join(d, "out")]).done,
          export: spawnCli("export", ["--db", db, "--out", join(d, "export")]).done,
          status: spawnCli("status", ["--db", db]).done,
        };
        for (const [command, run] of Object.entries(runs)) {
          const r = await run;
          expect(r.code, `${command} --db "${db}"`).toBe(1);
          expect(r.stderr.trim().split("\n"), `${command} --db "${db}"`).toEqual([expect.stringMatching(db === "" ? /^error: --db is empty \(an unset variable\?\): give the SQLite database file, or a postgres:\/\/ URL/ : /^error: --db :memory: keeps nothing once the command ends/)]);
        }
      }
      // on main: the batch sent its requests, then kept nothing
      expect(sim.counters.total).toBe(0);
      expect(existsSync(join(d, "out"))).toBe(false);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
