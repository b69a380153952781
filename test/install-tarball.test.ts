// The tool as npm installs it: `npm pack` (prepack compiles src to dist/), the tarball unpacked in
// an empty folder with its dependencies installed from npm's cache (`npm ci --omit=dev --offline`
// with the project's lockfile: what `npm ci` put in the cache is all it needs), and a night run by
// the installed command from another empty folder, with no tsx anywhere, against the installed
// simulator. Two shortcuts keep it within a minute, both about better-sqlite3's native module: its
// install script is skipped (offline it compiles from source, 64 s here) and the checkout's build of
// it is copied in (same Node). docs/install.md says how a real offline install builds it.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { childOutput, ROOT } from "./helpers/child-cli.js";
import { onCi } from "./helpers/requires-tool.js";
import { DEFAULT_KEY } from "../src/simulator/options.js";

const work = mkdtempSync(join(tmpdir(), "pcc-tarball-"));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
  return childOutput(child);
}

/** A user's environment with the installed command first on PATH and nothing of the test's (no COVERAGE_*, no npm_*). */
function userEnv(bin: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("COVERAGE_") && !k.startsWith("npm_")) env[k] = v;
  env.PATH = `${bin}:${env.PATH}`;
  return env;
}

describe("the packed tarball", () => {
  test("installs into an empty folder and runs a night from another one, with no tsx", async () => {
    const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], { cwd: ROOT });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(work, packed.stdout.trim().split("\n").at(-1)!);
    const prefix = join(work, "prefix");
    mkdirSync(prefix);
    expect((await run("tar", ["xzf", tarball, "-C", prefix], { cwd: work })).code).toBe(0);
    const pkg = join(prefix, "package");
    copyFileSync(join(ROOT, "package-lock.json"), join(pkg, "package-lock.json"));
    const installed = await run("npm", ["ci", "--omit=dev", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: pkg });
    if (installed.code !== 0 && /ENOTCACHED/.test(installed.stderr) && !onCi()) {
      console.warn("SKIPPED the tarball install: npm's cache lacks a dependency (run npm ci once to fill it)");
      return;
    }
    expect(installed.code, installed.stderr).toBe(0);
    const native = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
    mkdirSync(join(pkg, native, ".."), { recursive: true });
    copyFileSync(join(ROOT, native), join(pkg, native));
    // nothing of the clone: the install holds no tsx and no esbuild (devDependencies), the package no TypeScript
    for (const devOnly of ["tsx", "esbuild", "@esbuild", "typescript", "p-limit"]) expect(existsSync(join(pkg, "node_modules", devOnly)), devOnly).toBe(false);
    expect(readdirSync(pkg).sort()).toEqual(["README.md", "dist", "docs", "input", "node_modules", "package-lock.json", "package.json", "schema"]);
    // summary.json's schema ships beside the command that writes it
    expect(existsSync(join(pkg, "schema", "summary.schema.json"))).toBe(true);
    // the bin as npm links it: on PATH, executable
    const bin = join(work, "bin");
    mkdirSync(bin);
    chmodSync(join(pkg, "dist/cli/main.js"), 0o755);
    symlinkSync(join(pkg, "dist/cli/main.js"), join(bin, "postcode-coverage"));

    const home = join(work, "elsewhere");
    mkdirSync(home);
    const env = userEnv(bin);
    const help = await run("postcode-coverage", ["batch", "--help"], { cwd: home, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^postcode-coverage batch --in FILE/);
    // every document a --help names is in the package
    expect(help.stdout).toContain("docs/retention.md");
    expect(help.stdout).toContain("docs/open-data.md");
    for (const command of ["batch", "report", "status", "export", "simulate"]) {
      const text = command === "batch" ? help.stdout : (await run("postcode-coverage", [command, "--help"], { cwd: home, env })).stdout;
      for (const doc of text.match(/docs\/[\w-]+\.md/g) ?? []) expect(existsSync(join(pkg, doc)), `${command} --help names ${doc}`).toBe(true);
    }

    const simulator = spawn("postcode-coverage", ["simulate", "--port", "0"], { cwd: home, env, stdio: ["ignore", "pipe", "pipe"] });
    started.push(simulator);
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      simulator.stdout.setEncoding("utf8").on("data", (s: string) => {
        out += s;
        const m = /^listening (\S+)/m.exec(out);
        if (m) resolve(m[1]!);
      });
      simulator.once("exit", (code) => reject(new Error(`the installed simulator exited (${code})`)));
    });
    writeFileSync(join(home, "postcodes.csv"), "postcode\nSW1A 2AA\nCF10 1AA\nEH1 1YZ\n");
    const night = ["batch", "--in", "postcodes.csv", "--base-url", url, "--rate", "6000", "--log-format", "json", "--quiet"];
    const first = await run("postcode-coverage", night, { cwd: home, env: { ...env, COVERAGE_API_KEY: DEFAULT_KEY } });
    expect(first.stderr).not.toMatch(/"level":"error"/);
    expect(first.code).toBe(0);
    expect(existsSync(join(home, "output/coverage.xlsx"))).toBe(true);
    const second = await run("postcode-coverage", night, { cwd: home, env: { ...env, COVERAGE_API_KEY: DEFAULT_KEY } });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/broadband 0 requests/);
  }, 120_000);
});
