// A batch whose database it may not write: a read-only folder, a read-only file, a database owned
// by another user, a read-only mount. Each is one line with the cause and what to do, where SQLite
// alone says "unable to open database file" or "attempt to write a readonly database". As root the
// batch runs without root's override of file modes (setpriv, as in read-only-readers.test.ts); the
// read-only mount is a tmpfs mounted read only in a mount namespace of the child's own (unshare -m).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/child-cli.js";
import { requiresTool, TOOLS } from "./helpers/requires-tool.js";
import { scriptArgs } from "./helpers/compiled-tree.js";

const asRoot = process.getuid?.() === 0;
const SETPRIV = asRoot ? requiresTool(TOOLS.setpriv) : { skip: false };
const WITHOUT_OVERRIDE = asRoot ? ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] : [];
/** Whether this machine lets root mount a read-only tmpfs in a private mount namespace. */
const canMountReadOnly =
  asRoot && spawnSync("unshare", ["-m", "sh", "-c", "mount -t tmpfs -o ro tmpfs /mnt && ! touch /mnt/x 2>/dev/null"], { stdio: "ignore" }).status === 0;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    spawnSync("chmod", ["-R", "u+rwx", d]);
    rmSync(d, { recursive: true, force: true });
  }
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), "pcc-refusal-"));
  chmodSync(d, 0o755);
  dirs.push(d);
  writeFileSync(join(d, "in.csv"), "postcode\nSW1A 2AA\n");
  return d;
}

/** The batch (as a user without root's override) on `db`; `wrap` runs it inside another command. */
function batch(d: string, db: string, wrap: (argv: string[]) => string[] = (a) => a): Promise<{ code: number | null; stderr: string }> {
  const argv = wrap([...WITHOUT_OVERRIDE, process.execPath, ...scriptArgs("src/cli/batch.ts"), "--in", join(d, "in.csv"), "--simulate", "--no-progress", "--quiet", "--db", db, "--out", join(d, "out")]);
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}

/** stderr is exactly one error line, and it matches. */
function expectOneLine(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/unable to open database file|attempt to write a readonly database/);
}

describe.skipIf(SETPRIV.skip)("a database the batch may not write", () => {
  it("in a read-only folder (and below one): names the folder and says to pick a writable one", async () => {
    const d = folder();
    const ro = join(d, "ro");
    mkdirSync(ro, { mode: 0o555 });
    chmodSync(ro, 0o555);
    for (const db of [join(ro, "c.sqlite"), join(ro, "sub", "c.sqlite")])
      expectOneLine(await batch(d, db), new RegExp(`^error: cannot write the database ${db}: its folder ${ro} is not writable by this user .*; give --db a path in a folder you can write`));
  }, 60_000);

  it("a read-only database file: names its mode and says chmod u+w", async () => {
    const d = folder();
    const db = join(d, "c.sqlite");
    expect((await batch(d, db)).code).toBe(0);
    chmodSync(db, 0o444);
    expectOneLine(await batch(d, db), new RegExp(`^error: cannot write the database ${db}: ${db} is read-only \\(mode 0444\\); chmod u\\+w it`));
  }, 60_000);

  it.skipIf(!asRoot)("a database owned by another user: names its owner and says to run as that user", async () => {
    const d = folder();
    const db = join(d, "c.sqlite");
    expect((await batch(d, db)).code).toBe(0);
    chownSync(db, 12345, 12345);
    expectOneLine(await batch(d, db), new RegExp(`^error: cannot write the database ${db}: ${db} belongs to another user \\(uid 12345; .*\\); run the batch as that user`));
  }, 60_000);

  it.skipIf(!canMountReadOnly)("on a read-only mount: says so and says to pick a writable disk", async () => {
    const d = folder();
    const mount = join(d, "mnt");
    mkdirSync(mount);
    const db = join(mount, "c.sqlite");
    const inReadOnlyMount = (argv: string[]) => ["unshare", "-m", "sh", "-c", `mount -t tmpfs -o ro tmpfs '${mount}' && exec "$@"`, "sh", ...argv];
    expectOneLine(
      await batch(d, db, inReadOnlyMount),
      new RegExp(`^error: cannot write the database ${db}: ${mount} is on a read-only file system \\(a read-only mount\\); give --db a path on a writable disk`),
    );
  }, 60_000);
});
