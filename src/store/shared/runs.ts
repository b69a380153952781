// A run's row as every engine stores it: its lists are JSON text, read back with a clear error.
import { DatabaseError, type RunInfo, type RunState } from "../types.js";

export interface RunInfoRow {
  id: number;
  state: RunState;
  simulated: number;
  input_columns: string;
  lookups: string;
  providers: string;
}

/** The run a row describes; throws DatabaseError when its lists are unreadable. */
export function runInfoOf(row: RunInfoRow): RunInfo {
  return {
    id: row.id,
    state: row.state,
    simulated: row.simulated === 1,
    inputColumns: jsonList(row.input_columns, `run ${row.id}'s input columns`),
    lookups: jsonList(row.lookups, `run ${row.id}'s lookups`),
    providers: jsonList(row.providers, `run ${row.id}'s providers`),
  };
}

export function jsonList(text: string, what: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  } catch {
    // reported below
  }
  throw new DatabaseError(`${what} are not readable in the database (${text.slice(0, 60)})`);
}
