// What the CLIs that read the database and write files (report, export) share: the --run check,
// and how a failure becomes one line on stderr and exit code 1.
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { DatabaseError, openDatabase, type Db } from "../store/db.js";
import { ReportError } from "../report/scope.js";

export class UsageError extends Error {}

/** --run ID as a number; a usage error for anything but a whole number. */
export function parseRunId(run: string | undefined): number | undefined {
  if (run === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(run)) throw new UsageError(`--run: "${run}" is not a run id (a whole number; npm run status lists them)`);
  return Number(run);
}

/** Opens the database at `path` for `work` and closes it; a file that is not this program's database, or a damaged one, is named as such. */
export async function withDatabase<T>(path: string, options: { readonly?: boolean }, work: (db: Db) => Promise<T>): Promise<T> {
  if (!existsSync(path)) throw new ReportError(`no database at ${path} (run a batch first, or give --db PATH)`);
  let db: Db | null = null;
  try {
    db = openDatabase(path, options);
    return await work(db);
  } catch (err) {
    throw err instanceof Database.SqliteError ? new ReportError(`cannot read ${path}: ${err.message}`) : err;
  } finally {
    db?.close();
  }
}

/** Runs `main`, setting the exit code; a failure is one line on stderr (a stack only for a bug). */
export function runCli(name: string, writes: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) process.stderr.write(`error: ${err.message}\n(npm run ${name} -- --help lists the options)\n`);
      else if (err instanceof ReportError || err instanceof DatabaseError) process.stderr.write(`error: ${err.message}\n`);
      else if (err instanceof Error && "code" in err && typeof err.code === "string" && /^E[A-Z]+$/.test(err.code))
        // File system errors (a read-only or full --out): the message names the path.
        process.stderr.write(`error: cannot write ${writes}: ${err.message}\n`);
      else process.stderr.write(`error: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
