// Facts about one chaos run, read with plain SQL like the rest of the soak's checks, and whether
// the batch under test has an option (the soak holds the batch to behaviour it has).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Database from "better-sqlite3";

function readOne<T>(path: string, sql: string, ...params: unknown[]): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get(...params) as T;
  } finally {
    db.close();
  }
}

export function lastRunId(dbPath: string): number | null {
  return readOne<number | null>(dbPath, "SELECT MAX(id) FROM runs");
}

/** Lookups whose stored row this run wrote (any status). */
export function lookupsWrittenBy(dbPath: string, runId: number): number {
  return readOne<number>(dbPath, "SELECT COUNT(*) FROM lookups WHERE run_id = ?", runId);
}

/** Lookups this run stored as failed because the connection was refused. */
export function refusedFailuresOf(dbPath: string, runId: number): number {
  return readOne<number>(
    dbPath,
    "SELECT COUNT(*) FROM lookups WHERE run_id = ? AND status = 'failed' AND (last_error LIKE '%ECONNREFUSED%' OR last_error LIKE '%refused%')",
    runId,
  );
}

/** Whether `npm run batch -- --help` lists the option. */
export async function batchHasOption(root: string, env: NodeJS.ProcessEnv, option: string): Promise<boolean> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/cli/batch.ts", "--help"], { cwd: root, env, timeout: 30_000 });
  return `${stdout}\n${stderr}`.includes(option);
}
