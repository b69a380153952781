// Ofcom's open postcode data on PostgreSQL: one release at a time. An import runs in one
// transaction on its own connection: rows are copied (COPY) into a temporary table as they come,
// then replace the stored release in one statement at commit; a rollback leaves it whole. As on
// SQLite, a postcode listed twice keeps its last row.
import type pg from "pg";
import { OPEN_DATA_COLUMNS, type Premises } from "../../contract/open-data.js";
import type { OpenDataStore, OpenDataWriter } from "../store.js";
import type { OpenDataImport } from "../types.js";
import { checkOut } from "./connect.js";
import { copyRows } from "./copy.js";
import { currentOpenDataSteps, recordImportSteps } from "../sql/open-data.js";
import { postgresSession } from "./session.js";
import type { SqlSession } from "../sql/session.js";
import { runSteps } from "../sql/steps.js";

const BATCH = 5000;
const COLUMNS = ["postcode", "premises", ...OPEN_DATA_COLUMNS];

async function startImport(pool: pg.Pool): Promise<OpenDataWriter> {
  const client = await checkOut(pool);
  let done = false;
  const end = async (sql: "COMMIT" | "ROLLBACK"): Promise<void> => {
    if (done) return;
    done = true;
    let broken = false;
    try {
      await client.query(sql);
    } catch (err) {
      broken = true;
      if (sql === "COMMIT") throw err;
    } finally {
      client.release(broken);
    }
  };
  try {
    await client.query("BEGIN");
    await client.query(
      `CREATE TEMPORARY TABLE open_data_incoming (seq bigint GENERATED ALWAYS AS IDENTITY, LIKE open_data) ON COMMIT DROP`,
    );
  } catch (err) {
    await end("ROLLBACK");
    throw err;
  }
  let buffer: unknown[][] = [];
  let failure: Error | null = null;
  let chain: Promise<void> = Promise.resolve();
  const copyBuffer = (): void => {
    const rows = buffer;
    buffer = [];
    chain = chain.then(async () => {
      if (failure || rows.length === 0) return;
      try {
        await copyRows(client, "open_data_incoming", COLUMNS, rows);
      } catch (err) {
        failure = err as Error;
      }
    });
  };
  return {
    row(premises: Premises, postcode: string, values: readonly (number | null)[]) {
      buffer.push([postcode, premises, ...values]);
      if (buffer.length >= BATCH) copyBuffer();
    },
    async commit(meta): Promise<OpenDataImport> {
      copyBuffer();
      await chain;
      try {
        if (failure) throw failure;
        // two machines importing at once replace the release one after the other
        await client.query("LOCK TABLE open_data IN EXCLUSIVE MODE");
        await client.query("DELETE FROM open_data");
        await client.query(
          `INSERT INTO open_data (${COLUMNS.join(", ")})
           SELECT DISTINCT ON (postcode, premises) ${COLUMNS.join(", ")} FROM open_data_incoming ORDER BY postcode, premises, seq DESC`,
        );
        const recorded = await runSteps(postgresSession(client, { inTransaction: true }), recordImportSteps(meta));
        await end("COMMIT");
        return recorded;
      } catch (err) {
        await end("ROLLBACK");
        throw err;
      }
    },
    async rollback() {
      await chain;
      await end("ROLLBACK");
    },
  };
}

export function postgresOpenData(pool: pg.Pool, session: SqlSession): OpenDataStore {
  return {
    current: () => runSteps(session, currentOpenDataSteps(session.dialect)),
    startImport: () => startImport(pool),
  };
}
