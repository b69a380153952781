// Runs a CLI (src/cli/<name>.ts) as a real child process, for tests about processes: kill -9,
// signals, the lock, exit codes, what reaches stderr. One node process runs the CLI (compiled by
// the run, or through `--import tsx`: the tsx binary would put a second one in between, and kill -9
// would miss the real batch).
import { spawn, type ChildProcess } from "node:child_process";
import Database from "better-sqlite3";
import { ROOT, scriptArgs } from "./compiled-tree.js";
import { onWallClock } from "./scenario-clock.js";

export { ROOT };

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface ChildRun {
  child: ChildProcess;
  pid: number;
  /** the full argv the child was started with */
  argv: string[];
  done: Promise<ChildResult>;
  stderr(): string;
}

export interface SpawnOptions {
  /** added to a copy of this process's environment from which every COVERAGE_* variable is removed */
  env?: NodeJS.ProcessEnv;
  /** written to the child's standard input, which is then closed (unless keepStdinOpen) */
  stdin?: string;
  keepStdinOpen?: boolean;
}

/** A started child's exit code and everything it printed, once it has closed. */
export function childOutput(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export function spawnCli(cli: "batch" | "status" | "report" | "simulate" | "export" | "options-table", args: string[], options: SpawnOptions = {}): ChildRun {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("COVERAGE_")) env[k] = v;
  Object.assign(env, options.env);
  // a child tells the wall clock's time: its database's scenario is on the wall clock
  const db = dbArgument(args);
  if (db !== undefined) onWallClock(db, `npm run ${cli}`);
  const argv = [process.execPath, ...scriptArgs(`src/cli/${cli}.ts`), ...args];
  const started = Date.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  child.stdin.on("error", () => {}); // a child that exits early closes its stdin
  if (options.keepStdinOpen) child.stdin.write(options.stdin ?? "");
  else child.stdin.end(options.stdin ?? "");
  const done = new Promise<ChildResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
  return { child, pid: child.pid!, argv, done, stderr: () => stderr };
}

/** The --db a command line names (`--db x` or `--db=x`), if any. */
export function dbArgument(args: readonly string[]): string | undefined {
  const i = args.indexOf("--db");
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith("--db="))?.slice("--db=".length);
}

/** Polls until the condition holds; fails with `what` after the timeout. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Final answers stored so far in an SQLite file (0 while it does not exist yet), read while a child
 * batch writes it: synchronous, for waitFor, so the file is opened by the driver itself, never
 * through the store's modules (which a test must not depend on).
 */
export function storedAnswers(dbPath: string): number {
  try {
    const db = readOnly(dbPath);
    try {
      return db.prepare("SELECT COUNT(*) FROM lookups").pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/** One query against an SQLite file, read-only, by the driver itself (not the store's modules). */
export function query<T = Record<string, unknown>>(dbPath: string, sql: string, ...params: unknown[]): T[] {
  const db = readOnly(dbPath);
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** The file opened read only, waiting (as the store's own reader does) while a writer holds a lock. */
function readOnly(dbPath: string): Database.Database {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  return db;
}
