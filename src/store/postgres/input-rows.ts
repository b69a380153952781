// A run's input rows on PostgreSQL, written in batches through COPY as the input streams in; counted as on every engine (sql/run-reads.ts).
import type pg from "pg";
import type { InputRowStore } from "../store.js";
import type { StoredRow } from "../types.js";
import { inTransaction } from "./connect.js";
import { inputRowCountsSteps } from "../sql/run-reads.js";
import type { SqlSession } from "../sql/session.js";
import { runSteps } from "../sql/steps.js";
import { copyRows } from "./copy.js";

const BATCH = 5000;
const COLUMNS = ["run_id", "line", "value", "postcode", "reason", "cells"];

export function postgresInputRows(pool: pg.Pool, session: SqlSession): InputRowStore {
  return {
    async openWriter(runId) {
      let pending: StoredRow[] = [];
      const flush = async (): Promise<void> => {
        if (pending.length === 0) return;
        const rows = pending;
        pending = [];
        await inTransaction(pool, (client) =>
          copyRows(
            client,
            "run_rows",
            COLUMNS,
            rows.map((r) => [runId, r.line, r.value, r.postcode, r.reason, JSON.stringify(r.cells)]),
          ),
        );
      };
      return {
        async add(row) {
          pending.push(row);
          if (pending.length >= BATCH) await flush();
        },
        flush,
      };
    },
    counts: (runId) => runSteps(session, inputRowCountsSteps(runId)),
  };
}
