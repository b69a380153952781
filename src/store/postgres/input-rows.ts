// A run's input rows on PostgreSQL, written in batches through COPY as the input streams in.
import type pg from "pg";
import type { InputRowStore } from "../store.js";
import type { StoredRow } from "../types.js";
import { inTransaction, rowOf } from "./connect.js";
import { copyRows } from "./copy.js";

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
    async counts(runId) {
      return (await rowOf<{ input: number; invalid: number }>(
        pool,
        "SELECT COUNT(*) AS input, COUNT(*) - COUNT(postcode) AS invalid FROM run_rows WHERE run_id = $1",
        [runId],
      ))!;
    },
  };
}
