// A run's input rows on PostgreSQL, written in batches through COPY as the input streams in.
import type pg from "pg";
import type { InputRowStore } from "../store.js";
import type { StoredRow } from "../types.js";
import { inputRowCounts } from "../sql/report/input-rows.js";
import { inTransaction } from "./connect.js";
import { copyRows } from "./copy.js";
import { postgresSession } from "./session.js";

const BATCH = 5000;
const COLUMNS = ["run_id", "line", "value", "postcode", "reason", "cells"];

export function postgresInputRows(pool: pg.Pool): InputRowStore {
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
    counts: (runId) => inputRowCounts(postgresSession(pool, { inTransaction: false }), runId),
  };
}
