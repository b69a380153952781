// A throwaway PostgreSQL server for one test run, from Debian's `postgresql` package: initdb into a
// temporary folder (as the `postgres` user when we are root: the server refuses to run as root),
// a Unix socket in that folder and no TCP, durability off (the data dies with the run anyway).
// test/global-setup.ts starts it once and stops it at the end, also after a failure; each test
// gets a database of its own (test/helpers/postgres.ts).
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where Debian installs PostgreSQL's versions; PCC_POSTGRESQL_ROOT overrides it (e.g. to try the tests without it). */
export const POSTGRESQL_ROOT = process.env.PCC_POSTGRESQL_ROOT ?? "/usr/lib/postgresql";

/** The bin folder of the newest PostgreSQL Debian installed (<root>/<version>/bin), or null. */
export function postgresBinDir(root = POSTGRESQL_ROOT): string | null {
  let versions: string[];
  try {
    versions = readdirSync(root);
  } catch {
    return null;
  }
  const usable = versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return usable.length > 0 ? join(root, usable[0]!, "bin") : null;
}

/** The role the server asks a password of (tests create it); all others connect without one. */
export const PASSWORD_ROLE = "pcc_password";

export interface PostgresServer {
  /** the folder holding the server's Unix socket (libpq's `host`) */
  socketDir: string;
  /** the superuser to connect as (trust authentication over the socket) */
  user: string;
  stop(): void;
}

/** Starts a server; throws with the server's log when it cannot. */
export function startPostgresServer(binDir: string): PostgresServer {
  const root = mkdtempSync(join(tmpdir(), "pcc-pg-"));
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? "postgres" : execFileSync("id", ["-un"], { encoding: "utf8" }).trim();
  if (asRoot) chownSync(root, Number(execFileSync("id", ["-u", user], { encoding: "utf8" })), Number(execFileSync("id", ["-g", user], { encoding: "utf8" })));
  const run = (tool: string, args: string[]): void => {
    const [command, ...rest] = asRoot ? ["runuser", "-u", user, "--", join(binDir, tool), ...args] : [join(binDir, tool), ...args];
    const result = spawnSync(command!, rest, { encoding: "utf8", timeout: 60_000 });
    if (result.status !== 0) {
      throw new Error(`${tool} failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout || String(result.error)).trim()}`);
    }
  };
  const data = join(root, "data");
  const stop = (): void => {
    if (existsSync(join(data, "postmaster.pid"))) {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-s", "stop"]);
      } catch {
        // already gone: the folder goes anyway
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    // one role must give a password (PGPASSWORD, ~/.pgpass); everyone else is trusted over the socket
    const hba = join(data, "pg_hba.conf");
    writeFileSync(hba, `local all ${PASSWORD_ROLE} scram-sha-256\n${readFileSync(hba, "utf8")}`);
    const settings = [`-c listen_addresses=''`, `-k ${root}`, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"];
    run("pg_ctl", ["-D", data, "-w", "-s", "-l", join(root, "server.log"), "-o", settings.join(" "), "start"]);
  } catch (err) {
    const log = join(root, "server.log");
    const detail = existsSync(log) ? ` ${readFileSync(log, "utf8").trim().split("\n").slice(-3).join(" ")}` : "";
    stop();
    throw new Error(`${(err as Error).message}${detail}`);
  }
  return { socketDir: root, user, stop };
}
