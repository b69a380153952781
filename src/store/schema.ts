// Database schema, versioned with PRAGMA user_version. Mobile rating columns are generated
// from the provider list (spec field names as columns); other providers add columns later.
import { SPEED_FIELDS } from "../spec/fields.js";

/** Each migration takes the schema from version i to i+1. Never edit one that has shipped. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    started_at    TEXT NOT NULL,
    ended_at      TEXT,
    state         TEXT NOT NULL,            -- running | completed | failed | stopped | interrupted | abandoned
    exit_code     INTEGER,
    simulated     INTEGER NOT NULL DEFAULT 0,
    input_name    TEXT NOT NULL,            -- file path, or '-' for standard input
    input_columns TEXT NOT NULL,            -- JSON array of the input's header names
    postcode_column TEXT NOT NULL,
    args          TEXT NOT NULL,            -- JSON of the effective options (never keys)
    lookups       TEXT NOT NULL,            -- JSON array, e.g. ["broadband","mobile"]
    providers     TEXT NOT NULL,            -- JSON array of mobile provider prefixes
    input_rows    INTEGER NOT NULL DEFAULT 0,
    postcodes     INTEGER NOT NULL DEFAULT 0, -- unique valid postcodes
    rejects       INTEGER NOT NULL DEFAULT 0,
    ok            INTEGER NOT NULL DEFAULT 0, -- postcode x lookup pairs, final state after this run
    not_found     INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    pending       INTEGER NOT NULL DEFAULT 0,
    requests      INTEGER NOT NULL DEFAULT 0,
    retries       INTEGER NOT NULL DEFAULT 0,
    throttled     INTEGER NOT NULL DEFAULT 0, -- 429s received
    message       TEXT
  );

  -- Every input row of every run: what the report's enriched.csv and rejects.csv are made from.
  CREATE TABLE run_rows (
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    line     INTEGER NOT NULL,             -- 1-based line in the input file where the row starts
    value    TEXT NOT NULL,                -- the raw postcode cell
    postcode TEXT,                         -- compact normalised postcode, NULL when rejected
    reason   TEXT,                         -- why rejected, NULL when valid
    cells    TEXT NOT NULL,                -- JSON array of all the row's cells, as read
    PRIMARY KEY (run_id, line)
  ) WITHOUT ROWID;
  CREATE INDEX run_rows_postcode ON run_rows(run_id, postcode);

  -- One row per postcode and lookup: the latest final answer.
  CREATE TABLE lookups (
    postcode      TEXT NOT NULL,
    lookup        TEXT NOT NULL,           -- broadband | mobile
    status        TEXT NOT NULL,           -- ok | not_found | failed
    http_status   INTEGER,                 -- last HTTP status, NULL for a network failure
    attempts      INTEGER NOT NULL,
    last_error    TEXT,
    fetched_at    TEXT NOT NULL,           -- ISO time of the final answer
    run_id        INTEGER NOT NULL,
    dataset       TEXT,                    -- e.g. DBName of the mobile answer
    address_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (postcode, lookup)
  ) WITHOUT ROWID;

  CREATE TABLE broadband_addresses (
    postcode TEXT NOT NULL,
    uprn     INTEGER NOT NULL,
    address  TEXT NOT NULL,
    ${SPEED_FIELDS.map((f) => `${f} REAL`).join(",\n    ")},
    PRIMARY KEY (postcode, uprn)
  ) WITHOUT ROWID;

  CREATE TABLE mobile_addresses (
    postcode TEXT NOT NULL,
    uprn     INTEGER NOT NULL,
    address  TEXT NOT NULL,
    PRIMARY KEY (postcode, uprn)
  ) WITHOUT ROWID;

  -- Single-row lock so that two batches never write one database at once.
  CREATE TABLE batch_lock (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    pid        INTEGER NOT NULL,
    host       TEXT NOT NULL,
    run_id     INTEGER,
    started_at TEXT NOT NULL
  );
  `,
  // A mobile answer holds ratings only for the providers asked for: a run that wants another provider
  // must fetch it again rather than report empty ratings as data. Simulated answers are told apart
  // from real ones per answer (a run's flag is lost when a later run's failure takes the row). A
  // lock names its holder beyond the pid.
  `
  ALTER TABLE lookups ADD COLUMN providers TEXT; -- mobile ok answers: ",ProvA,ProvB," the providers whose ratings are stored
  UPDATE lookups SET providers = (SELECT ',' || group_concat(j.value, ',') || ','
                                    FROM runs r, json_each(r.providers) j WHERE r.id = lookups.run_id)
   WHERE lookup = 'mobile' AND status = 'ok';
  ALTER TABLE lookups ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0; -- 1: the stored answer came from the bundled simulator
  UPDATE lookups SET simulated = (SELECT r.simulated FROM runs r WHERE r.id = lookups.run_id);
  ALTER TABLE batch_lock ADD COLUMN process TEXT; -- boot id and start time of the holder (Linux), so a reused pid is no holder
  `,
  // A version of the stored answers, so that a report set can tell it is current without reading
  // them (report/fingerprint.ts): raised by every change to lookups, which every answer writes.
  `
  CREATE TABLE answers_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT INTO answers_version (id, n) VALUES (1, 0);
  CREATE TRIGGER lookups_inserted AFTER INSERT ON lookups BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER lookups_updated AFTER UPDATE ON lookups BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER lookups_deleted AFTER DELETE ON lookups BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

