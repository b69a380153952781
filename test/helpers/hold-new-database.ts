// Plays the first of two batches starting at once on a new database (issue 10.10): creates the
// database at argv[2] and, inside one open IMMEDIATE transaction, migrates it and takes the lock.
// Prints "ready" with the transaction still open, commits `argv[3]` ms later, then stays alive (as
// a running batch does) until its standard input closes.
import Database from "better-sqlite3";
import { hostname } from "node:os";
import { MIGRATIONS } from "../../src/store/sqlite/schema.js";
import { processIdentity } from "../../src/store/process-identity.js";

const [path, commitAfterMs] = process.argv.slice(2) as [string, string];
const db = new Database(path);
db.pragma("journal_mode = WAL");
db.exec("BEGIN IMMEDIATE");
MIGRATIONS.forEach((sql, v) => {
  db.exec(sql);
  db.pragma(`user_version = ${v + 1}`);
});
db.prepare("INSERT INTO leases (pid, process, host, run_id, taken_at, expires_ms) VALUES (?, ?, ?, NULL, ?, ?)").run(
  process.pid,
  processIdentity(process.pid),
  hostname(),
  new Date().toISOString(),
  Date.now() + 120_000,
);
process.stdout.write("ready\n");
setTimeout(() => db.exec("COMMIT"), Number(commitAfterMs));
process.stdin.resume();
process.stdin.on("end", () => {
  db.close();
  process.exit(0);
});
