// A large database for the report scenario, built fast: the store's own schema (openDatabase runs
// its migrations), one finished run whose input holds every postcode, and the simulator's
// synthetic mobile addresses (commas, quotes, Welsh letters, formula-like text) inserted in one
// transaction.
import { normalisePostcode } from "../../src/contract/postcode.js";
import { generatePostcode, generatePostcodes } from "../../src/simulator/index.js";
import { DEFAULT_PROVIDERS, mobileFields } from "../../src/contract/fields.js";
import { ensureProviderColumns, openDatabase } from "../../src/store/sqlite/db.js";
import { createRun, finishRun, setRunInput } from "../../src/store/sqlite/runs.js";
import { ratingEvidence, STORED_EVIDENCE } from "../../src/store/sql/scale-sql.js";
import { BENCH_SEED } from "./input-file.js";

export interface BuiltDb {
  runId: number;
  postcodes: number;
  addresses: number;
  seconds: number;
}

/** Exactly `addresses` mobile addresses (the last postcode is cut short to hit the number). */
export function buildMobileDb(path: string, addresses: number): BuiltDb {
  const started = performance.now();
  const providers = DEFAULT_PROVIDERS;
  const fields = mobileFields(providers);
  const db = openDatabase(path);
  try {
    ensureProviderColumns(db, providers);
    const now = new Date().toISOString();
    const runId = createRun(db, { startedAt: now, simulated: true, inputName: "bench", args: {}, lookups: ["mobile"], providers });
    setRunInput(db, runId, ["postcode"], "postcode");
    const insertRow = db.prepare("INSERT INTO run_rows (run_id, line, value, postcode, reason, cells) VALUES (?, ?, ?, ?, NULL, ?)");
    const insertLookup = db.prepare(
      `INSERT INTO lookups (postcode, lookup, status, http_status, attempts, last_error, fetched_at, run_id, dataset, address_count, ${STORED_EVIDENCE.ratings}, ${STORED_EVIDENCE.legacy})
       VALUES (?, 'mobile', 'ok', 200, 1, NULL, ?, ?, NULL, ?, ?, ?)`,
    );
    const insertAddress = db.prepare(
      `INSERT INTO mobile_addresses (postcode, uprn, address, ${fields.join(", ")}) VALUES (?, ?, ?, ${fields.map(() => "?").join(", ")})`,
    );
    let written = 0;
    let postcodes = 0;
    const seen = new Set<string>();
    db.transaction(() => {
      // Enough candidates for the target at about 20 addresses a postcode; more are drawn if not.
      for (let batch = 1; written < addresses; batch++) {
        const candidates = generatePostcodes(`${BENCH_SEED}-${batch}`, Math.ceil(addresses / 15));
        for (const display of candidates) {
          if (written >= addresses) break;
          const sim = generatePostcode(BENCH_SEED, display, providers);
          const normalised = normalisePostcode(display);
          if (!sim || !normalised.ok || seen.has(normalised.compact)) continue;
          seen.add(normalised.compact);
          const take = sim.addresses.slice(0, addresses - written);
          postcodes++;
          insertRow.run(runId, postcodes + 1, display, normalised.compact, JSON.stringify([display]));
          // each answer's scale evidence, as the store's writer counts it
          const evidence = ratingEvidence(take.map((a) => [a.UPRN, a.AddressShortDescription, ...a.ratings]));
          insertLookup.run(normalised.compact, now, runId, take.length, evidence.ratings, evidence.legacy);
          for (const a of take) insertAddress.run(normalised.compact, a.UPRN, a.AddressShortDescription, ...a.ratings);
          written += take.length;
        }
      }
    })();
    finishRun(db, runId, {
      endedAt: new Date().toISOString(),
      state: "completed",
      exitCode: 0,
      message: null,
      counts: {
        inputRows: postcodes,
        postcodes,
        rejects: 0,
        ok: postcodes,
        notFound: 0,
        failed: 0,
        pending: 0,
        requests: postcodes,
        retries: 0,
        throttled: 0,
      },
    });
    // The report reads a settled file, as it would after a batch: fold the WAL back in.
    db.pragma("wal_checkpoint(TRUNCATE)");
    return { runId, postcodes, addresses: written, seconds: (performance.now() - started) / 1000 };
  } finally {
    db.close();
  }
}
