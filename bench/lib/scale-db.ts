// A whole-UK-sized database for the scale scenario, built through the store's own code and no HTTP:
// the input file read by the batch's input reader into a run (rowWriter), then every postcode's
// answers (the simulator's synthetic addresses, cut to an average of ADDRESSES_PER_POSTCODE) written
// by the store's answer writer. Answers go in postcode order: the tables are keyed by postcode,
// and in input order a 7 GB build spends its time splitting random B-tree pages.
import { createReadStream } from "node:fs";
import { openInput } from "../../src/input/read-input.js";
import { generateCompact, type SimAddress } from "../../src/simulator/data.js";
import { DEFAULT_PROVIDERS, LOOKUPS, SPEED_FIELDS, type Lookup } from "../../src/contract/fields.js";
import type { Answer, FinalRecord } from "../../src/contract/records.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { storedRow } from "../../src/store/types.js";
import { BENCH_SEED } from "./input-file.js";

/** The whole UK: about 30M addresses in 1.8M postcodes. */
export const ADDRESSES_PER_POSTCODE = 30 / 1.8;
const GROUP = 1000;
/** Each lookup's answer for a postcode's simulated addresses: a third lookup is one more entry. */
const ANSWER_OF: Record<Lookup, (take: readonly SimAddress[]) => Answer> = {
  broadband: (take) => ({ lookup: "broadband", dataset: null, addresses: take.map((a) => ({ uprn: a.UPRN, address: a.AddressShortDescription, speeds: SPEED_FIELDS.map((f) => a.speeds[f]) })) }),
  mobile: (take) => ({ lookup: "mobile", dataset: "bench", addresses: take.map((a) => ({ uprn: a.UPRN, address: a.AddressShortDescription, ratings: a.ratings })) }),
};

export interface ScaleDb {
  runId: number;
  postcodes: number;
  addresses: number;
  seconds: number;
}

export async function buildScaleDb(dbPath: string, inputPath: string, log: (m: string) => void): Promise<ScaleDb> {
  const started = performance.now();
  const providers = [...DEFAULT_PROVIDERS];
  const store = openSqliteStore(dbPath);
  try {
    // For the build only (the batch keeps the store's settings): a bigger page cache, and no fsync,
    // as a lost build is simply rebuilt. Engine tuning, so through the SQLite store's own handle.
    store.db.pragma("cache_size = -262144");
    store.db.pragma("synchronous = OFF");
    await store.answers.prepareProviders(providers);
    const now = new Date().toISOString();
    const runId = await store.runs.create({ startedAt: now, simulated: false, inputName: inputPath, args: {}, lookups: LOOKUPS, providers });
    const input = await openInput(createReadStream(inputPath), { source: inputPath });
    await store.runs.setInput(runId, input.header.columns, input.header.postcodeColumn);
    const rows = await store.inputRows.openWriter(runId);
    const compact: string[] = [];
    let inputRows = 0;
    for await (const row of input.rows) {
      inputRows++;
      await rows.add(storedRow(row));
      if (row.postcode.ok) compact.push(row.postcode.compact);
    }
    await rows.flush();
    const postcodes = [...new Set(compact)].sort();
    compact.length = 0;
    log(`scale: ${inputRows} input rows stored in ${((performance.now() - started) / 1000).toFixed(1)} s; writing answers`);

    const writer = await store.answers.openWriter({ providers });
    const quota = Math.round(postcodes.length * ADDRESSES_PER_POSTCODE);
    let addresses = 0;
    for (let i = 0; i < postcodes.length; i++) {
      const postcode = postcodes[i]!;
      const sim = generateCompact(BENCH_SEED, postcode, providers);
      // Up to twice the quota left per postcode left: small postcodes leave room that larger ones
      // fill, so the total comes close to the quota with the simulator's spread of sizes.
      const share = Math.max(1, Math.round((2 * (quota - addresses)) / (postcodes.length - i)));
      const take = sim ? sim.addresses.slice(0, share) : [];
      addresses += take.length;
      const base = { postcode, httpStatus: sim ? 200 : 404, attempts: 1, lastError: null, fetchedAt: now, runId };
      for (const lookup of LOOKUPS) {
        const answer = ANSWER_OF[lookup](take);
        const record: FinalRecord = sim ? { ...base, lookup, status: "ok", answer } : { ...base, lookup, status: "not_found" };
        writer.write(record);
      }
      if ((i + 1) % GROUP === 0) await writer.flush();
      if ((i + 1) % 100_000 === 0)
        log(`scale: ${i + 1} of ${postcodes.length} postcodes written (${addresses} addresses) at ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    await writer.flush();
    const final = await store.runs.finalCounts(runId, LOOKUPS);
    await store.runs.finish(runId, {
      endedAt: new Date().toISOString(),
      state: "completed",
      exitCode: 0,
      message: null,
      counts: { inputRows, postcodes: postcodes.length, rejects: 0, ...final, requests: 0, retries: 0, throttled: 0 },
    });
    // As the batch records after a list's first run: its own answers checked each lookup's release
    // today, so the unchanged re-run the same day sends no probe round (plan/probe-rule.ts).
    for (const lookup of LOOKUPS) await store.releaseChecks.record({ lookup, at: now, how: "answers", runId });
    // Later steps read a settled file, as after a batch: fold the WAL back in.
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    return { runId, postcodes: postcodes.length, addresses, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}
