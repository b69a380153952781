// Which postcodes a report covers: one run's input (by default the last run), or everything stored.
import { LOOKUPS, PROVIDER_CODE, type Lookup } from "../spec/fields.js";
import { missingProviderColumns, type Db } from "../store/db.js";

/** A report that cannot be made as asked (unknown run, empty database): the CLI exits 1 with it. */
export class ReportError extends Error {}

export interface ReportScope {
  kind: "run" | "all";
  /** the run reported; for `all`, the latest run (whose providers name the columns) */
  runId: number;
  /** lookups the run asked for (both for `all`); the others are `not_requested` */
  lookups: Lookup[];
  providers: string[];
  /** the run's input header, for enriched.csv; empty for `all` */
  inputColumns: string[];
  runSimulated: boolean;
  runState: string;
}

interface RunRow {
  id: number;
  state: string;
  simulated: number;
  input_columns: string;
  lookups: string;
  providers: string;
}

export function resolveScope(db: Db, request: { runId?: number | undefined; all?: boolean | undefined }): ReportScope {
  const select = "SELECT id, state, simulated, input_columns, lookups, providers FROM runs";
  const run =
    request.runId === undefined || request.all
      ? // the last run that read its input: a run that failed on its input (or config) has no rows to report
        (db.prepare(`${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1`).get() as RunRow | undefined)
      : (db.prepare(`${select} WHERE id = ?`).get(request.runId) as RunRow | undefined);
  if (!run) {
    const range = db.prepare("SELECT MIN(id) AS min, MAX(id) AS max FROM runs").get() as { min: number | null; max: number | null };
    if (range.max === null) throw new ReportError("the database holds no runs yet: run a batch first");
    throw new ReportError(`there is no run ${request.runId} in the database (runs ${range.min} to ${range.max} are stored)`);
  }
  const providers = parseJsonList(run.providers, `run ${run.id}'s providers`);
  for (const p of providers)
    if (!PROVIDER_CODE.test(p)) throw new ReportError(`run ${run.id} records an invalid provider code "${p}"`);
  const missing = missingProviderColumns(db, providers);
  if (missing.length > 0)
    throw new ReportError(`the database has no ${missing[0]} column for run ${run.id}'s providers (${providers.join(", ")})`);
  const lookups = request.all
    ? [...LOOKUPS]
    : parseJsonList(run.lookups, `run ${run.id}'s lookups`).filter((l): l is Lookup => (LOOKUPS as readonly string[]).includes(l));
  return {
    kind: request.all ? "all" : "run",
    runId: run.id,
    lookups,
    providers,
    inputColumns: request.all ? [] : parseJsonList(run.input_columns, `run ${run.id}'s input columns`),
    runSimulated: run.simulated === 1,
    runState: run.state,
  };
}

function parseJsonList(text: string, what: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  } catch {
    // reported below
  }
  throw new ReportError(`${what} are not readable in the database (${text.slice(0, 60)})`);
}
