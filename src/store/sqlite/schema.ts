// Database schema, versioned with PRAGMA user_version. Mobile rating columns are generated
// from the provider list (spec field names as columns); other providers add columns later.
import { SPEED_FIELDS } from "../../contract/fields.js";
import { OPEN_DATA_COLUMNS } from "../../contract/open-data.js";

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
  // History (docs/history-and-quota.md): the address tables keep holding the latest answer, as the
  // reports read it; every distinct answer is a version, whose addresses move into its content
  // (JSON) only when a newer one replaces it, so storage grows only with real changes. Releases are
  // numbered in the order they were first seen; the highest id of a lookup is its newest. What a
  // run planned to fetch is recorded (run_needs), so that what it did not fetch counts as pending,
  // and an unfinished --refresh resumes from its mark. Existing answers become the first version.
  `
  CREATE TABLE releases (
    id          INTEGER PRIMARY KEY,      -- order of detection: the highest of a lookup is its newest
    lookup      TEXT NOT NULL,
    name        TEXT NOT NULL,            -- DBName (mobile), --release NAME, or the date it was first seen
    detected_at TEXT NOT NULL,
    run_id      INTEGER,
    UNIQUE (lookup, name)
  );
  CREATE TABLE answer_versions (
    id            INTEGER PRIMARY KEY,
    postcode      TEXT NOT NULL,
    lookup        TEXT NOT NULL,
    status        TEXT NOT NULL,          -- ok | not_found
    hash          TEXT,                   -- content hash; NULL for a migrated version until it is compared
    release       TEXT NOT NULL,          -- the release in which this content first appeared
    first_seen    TEXT NOT NULL,
    last_seen     TEXT NOT NULL,
    run_id        INTEGER NOT NULL,       -- the run that first saw it
    simulated     INTEGER NOT NULL DEFAULT 0,
    address_count INTEGER NOT NULL DEFAULT 0,
    providers     TEXT,                   -- mobile: the providers whose ratings it holds, as lookups.providers
    content       TEXT                    -- JSON rows [uprn, address, ...values] once superseded; NULL while latest
  );
  CREATE INDEX answer_versions_by_postcode ON answer_versions(postcode, lookup, id);
  ALTER TABLE lookups ADD COLUMN version_id INTEGER; -- the latest version (kept through a later failure)
  ALTER TABLE lookups ADD COLUMN release TEXT;       -- the release the answer was last confirmed on
  CREATE TABLE run_needs (
    run_id   INTEGER NOT NULL,
    lookup   TEXT NOT NULL,
    postcode TEXT NOT NULL,
    reason   TEXT NOT NULL,                -- new | failed | incomplete | release | age | refresh | probe
    PRIMARY KEY (run_id, lookup, postcode)
  ) WITHOUT ROWID;
  CREATE TABLE refresh_marks (
    lookup TEXT PRIMARY KEY,               -- a --refresh in progress: answers fetched before since still need it
    since  TEXT NOT NULL,
    run_id INTEGER NOT NULL
  );

  INSERT INTO releases (lookup, name, detected_at)
    SELECT lookup, dataset, MIN(fetched_at) FROM lookups WHERE dataset IS NOT NULL
     GROUP BY lookup, dataset ORDER BY MIN(fetched_at);
  INSERT INTO releases (lookup, name, detected_at)
    SELECT lookup, substr(MIN(fetched_at), 1, 10), MIN(fetched_at) FROM lookups
     WHERE lookup NOT IN (SELECT lookup FROM releases) GROUP BY lookup;
  INSERT INTO answer_versions (postcode, lookup, status, release, first_seen, last_seen, run_id, simulated, address_count, providers)
    SELECT l.postcode, l.lookup, CASE WHEN l.status = 'not_found' THEN 'not_found' ELSE 'ok' END,
           COALESCE(l.dataset, (SELECT r.name FROM releases r WHERE r.lookup = l.lookup ORDER BY r.id DESC LIMIT 1)),
           l.fetched_at, l.fetched_at, l.run_id, l.simulated, l.address_count, l.providers
      FROM lookups l
     WHERE l.status IN ('ok', 'not_found')
        OR (l.lookup = 'broadband' AND EXISTS (SELECT 1 FROM broadband_addresses b WHERE b.postcode = l.postcode))
        OR (l.lookup = 'mobile' AND EXISTS (SELECT 1 FROM mobile_addresses m WHERE m.postcode = l.postcode));
  UPDATE lookups SET
    version_id = (SELECT v.id FROM answer_versions v WHERE v.postcode = lookups.postcode AND v.lookup = lookups.lookup),
    release = (SELECT v.release FROM answer_versions v WHERE v.postcode = lookups.postcode AND v.lookup = lookups.lookup);
  `,
  // Quota (docs/history-and-quota.md): every request sent, per lookup and quota period, so that a
  // month's calls are counted across runs; and the service's own "quota replenished in" answer.
  `
  CREATE TABLE request_ledger (
    id      INTEGER PRIMARY KEY,
    lookup  TEXT NOT NULL,
    period  TEXT NOT NULL,                -- the quota period's first day (UTC), e.g. 2026-03-01
    sent_at TEXT NOT NULL,
    status  INTEGER,                      -- HTTP status; NULL for a network failure
    run_id  INTEGER NOT NULL
  );
  CREATE INDEX request_ledger_by_period ON request_ledger(lookup, period);
  CREATE TABLE quota_blocks (
    lookup  TEXT PRIMARY KEY,             -- the service said this lookup's quota is spent until then
    until   TEXT NOT NULL,
    message TEXT NOT NULL,
    run_id  INTEGER NOT NULL
  );
  `,
  // A version of the stored answers, so that a report set can tell it is current without reading
  // them (report/set/fingerprint.ts): raised by every change to what the reports read of lookups. An
  // identical re-fetch (a probe) moves only fetched_at and run_id, and leaves it as it was.
  `
  CREATE TABLE answers_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT INTO answers_version (id, n) VALUES (1, 0);
  CREATE TRIGGER lookups_inserted AFTER INSERT ON lookups BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER lookups_updated AFTER UPDATE ON lookups
    WHEN OLD.status IS NOT NEW.status OR OLD.version_id IS NOT NEW.version_id OR OLD.release IS NOT NEW.release
      OR OLD.dataset IS NOT NEW.dataset OR OLD.address_count IS NOT NEW.address_count OR OLD.providers IS NOT NEW.providers
      OR OLD.simulated IS NOT NEW.simulated OR OLD.http_status IS NOT NEW.http_status OR OLD.last_error IS NOT NEW.last_error
      OR OLD.attempts IS NOT NEW.attempts
    BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER lookups_deleted AFTER DELETE ON lookups BEGIN UPDATE answers_version SET n = n + 1 WHERE id = 1; END;
  `,
  // Ofcom's open postcode data (docs/open-data.md): one release at a time, all premises and
  // residential apart; each import is recorded with its source's fingerprint, so the same archive
  // is not read twice. The newest import is the one the rows belong to.
  `
  CREATE TABLE open_data_imports (
    id          INTEGER PRIMARY KEY,
    month       TEXT NOT NULL,            -- the data month, YYYY-MM
    revision    INTEGER NOT NULL,
    source      TEXT NOT NULL,            -- the path given to --open-data
    fingerprint TEXT NOT NULL,            -- names, sizes and times of the files read
    imported_at TEXT NOT NULL,
    files       INTEGER NOT NULL,
    postcodes   INTEGER NOT NULL,         -- all-premises rows
    residential INTEGER NOT NULL,         -- residential rows
    run_id      INTEGER
  );
  CREATE TABLE open_data (
    postcode TEXT NOT NULL,               -- compact
    premises TEXT NOT NULL,               -- all | residential
    ${OPEN_DATA_COLUMNS.map((c) => `${c} REAL`).join(",\n    ")},
    PRIMARY KEY (postcode, premises)
  ) WITHOUT ROWID;
  `,
  // When each lookup's release was last checked (a probe round, or answers that tell as much): at
  // most one probe round per lookup a day (plan/probe-rule.ts).
  `
  CREATE TABLE release_checks (
    lookup     TEXT PRIMARY KEY,
    checked_at TEXT NOT NULL,             -- the checking run's start (ISO, UTC)
    how        TEXT NOT NULL,             -- probes | answers
    run_id     INTEGER NOT NULL
  );
  `,
  // Leases replace batch_lock: a holder, an expiry its process renews; a run belongs to
  // a lease and is abandoned once that lease is no longer live. A run's quota reservations and
  // claims are the lease's too, so a killed run's lapse with it. batch_lock goes: an older version
  // refuses this schema, so no batch of it can hold that lock here.
  `
  CREATE TABLE leases (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a run names the lease it ran under
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    process    TEXT,                      -- boot id and start time of the holder (Linux), so a reused pid is no holder
    run_id     INTEGER,
    taken_at   TEXT NOT NULL,
    expires_ms INTEGER NOT NULL           -- epoch ms: past it, the lease is no longer live
  );
  ALTER TABLE runs ADD COLUMN lease_id INTEGER;
  CREATE TABLE ledger_reservations (
    lease_id INTEGER NOT NULL,
    lookup   TEXT NOT NULL,
    period   TEXT NOT NULL,
    unspent  INTEGER NOT NULL,            -- reserved and not yet recorded in request_ledger
    PRIMARY KEY (lease_id, lookup, period)
  ) WITHOUT ROWID;
  CREATE TABLE claims (
    lookup   TEXT NOT NULL,
    postcode TEXT NOT NULL,
    lease_id INTEGER NOT NULL,
    run_id   INTEGER NOT NULL,
    PRIMARY KEY (lookup, postcode)
  ) WITHOUT ROWID;
  CREATE INDEX claims_by_lease ON claims(lease_id);
  DROP TABLE batch_lock;
  `,
  // Each mobile release's rating scale (contract/mobile-scales.ts) and its evidence: the ratings its
  // answers hold and how many are 1 or 2 (any makes it legacy). Set after each batch's fetch.
  `
  ALTER TABLE releases ADD COLUMN scale TEXT;
  ALTER TABLE releases ADD COLUMN scale_ratings INTEGER;
  ALTER TABLE releases ADD COLUMN scale_legacy_ratings INTEGER;
  `,
  // Which postcode's answer expired (retention) and when, so reports say "expired, awaiting
  // refresh" rather than "pending". No answer content: Ofcom's terms forbid keeping it.
  `
  CREATE TABLE expired_answers (
    postcode   TEXT NOT NULL,
    lookup     TEXT NOT NULL,
    expired_at TEXT NOT NULL,
    PRIMARY KEY (postcode, lookup)
  ) WITHOUT ROWID;
  `,
  // The seed of the sample order (plan/sample-order.ts): chosen by the first batch, kept, so the
  // order is the same every night.
  `
  CREATE TABLE sample_seed (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seed TEXT NOT NULL
  );
  `,
  // When the API last returned each answer, apart from fetched_at (the last attempt): a failure
  // moves fetched_at but never this, so a failed refresh cannot keep an old answer young. The
  // retention ages an answer by it; NULL for a pair never answered. The current version's last
  // seen is that time.
  `
  ALTER TABLE lookups ADD COLUMN returned_at TEXT;
  UPDATE lookups SET returned_at = (SELECT v.last_seen FROM answer_versions v WHERE v.id = lookups.version_id);
  `,
  // Each mobile answer's scale evidence, counted when it is written: its ratings and those of 1 or
  // 2, so that a release's scale is a sum over answers, not over every rating stored. NULL for an
  // answer stored before (counted from its addresses until it is written again).
  `
  ALTER TABLE lookups ADD COLUMN scale_ratings INTEGER;
  ALTER TABLE lookups ADD COLUMN scale_legacy_ratings INTEGER;
  `,
  // Each mobile answer's addresses at each rating of the summary's rating places, counted when it
  // is written (sql/scale-sql.ts: ratingCountsText), so that the summary's rating shares are a sum
  // over answers. NULL for an answer stored before (counted from its addresses until written again).
  `
  ALTER TABLE lookups ADD COLUMN rating_counts TEXT;
  `,
  // The version of this program that last wrote the database (sql/tool-version.ts), which status
  // names: one row, recorded as a writer opens the database.
  `
  CREATE TABLE tool_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version TEXT NOT NULL
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

