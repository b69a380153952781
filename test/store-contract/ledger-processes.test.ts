// The ledger's reserve across processes: three processes on one database of each engine, each reserving one
// request at a time as fast as it can, are granted the limit together, never more.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/child-cli.js";
import { ENGINES } from "./engines.js";
import { scriptArgs } from "../helpers/compiled-tree.js";

const T0 = Date.parse("2026-03-01T00:00:00.000Z");

/** A child reserving from the ledger: `ready` once it has opened the store, `granted` once it is told to go and has finished. */
function reserveInChild(path: string, leaseId: number, limit: number): { ready: Promise<void>; go(): void; granted: Promise<number> } {
  const child = spawn(process.execPath, [...scriptArgs("test/helpers/reserve-child.ts"), path, String(leaseId), String(limit), String(T0)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let onReady = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.includes("ready")) onReady();
  });
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const granted = new Promise<number>((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve(Number(/granted (\d+)/.exec(out)?.[1])) : reject(new Error(`reserve child exited ${code}: ${err}`)))),
  );
  return { ready, go: () => child.stdin.end("go\n"), granted };
}

describe.each(ENGINES)("ledger reserve across processes ($name)", (engine) => {
  it("three processes reserving at once are granted the limit together, never more", async () => {
    const e = await engine.open();
    const store = e.store;
    // the store's location opens it again: a path, or the URL (which never holds a password)
    const { lease } = await store.leases.take({ host: "elsewhere", pid: 1, process: null }, T0, 600_000);
    const children = [0, 1, 2].map(() => reserveInChild(store.location, lease.id, 1500));
    // all three open the store first, then reserve together
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const grants = await Promise.all(children.map((c) => c.granted));
    expect(grants.reduce((n, g) => n + g, 0)).toBe(1500);
    // they did reserve side by side: no one process took it all
    expect(grants.filter((g) => g > 0).length).toBeGreaterThan(1);
    expect(await store.ledger.used("broadband", "2026-03-01", T0)).toBe(1500);
    await e.cleanup();
  }, 60_000);
});
