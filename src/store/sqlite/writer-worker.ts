// The SQLite answer writer's own thread (writer-thread.ts starts it): it opens the database file
// again, runs the same writer the batch's thread would (answers.ts), and commits what it is handed,
// so that storing does not hold up fetching on the event loop's one thread.
import { parentPort, workerData } from "node:worker_threads";
import { DatabaseError, LeaseLostError } from "../types.js";
import { answerWriter, type SqliteAnswerWriter } from "./answers.js";
import { connect, namingPath, type Db } from "./db.js";
import type { FromWriter, SentError, ToWriter, WorkerSettings } from "./writer-messages.js";

const port = parentPort!;
const settings = workerData as WorkerSettings;
const send = (message: FromWriter) => port.postMessage(message);

function sentError(err: unknown): SentError {
  if (err instanceof LeaseLostError) return { kind: "lease-lost", message: err.message, leaseId: settings.leaseId ?? 0 };
  const named = namingPath(err, settings.path);
  return { kind: named instanceof DatabaseError ? "database" : "other", message: named.message };
}

/** The first failure is told once; after it nothing more is written. */
let failed = false;
function fail(err: unknown): void {
  if (failed) return;
  failed = true;
  send({ kind: "failed", error: sentError(err) });
}

function open(): { db: Db; writer: SqliteAnswerWriter } {
  const db = connect(settings.path);
  const writer = answerWriter(db, {
    providers: settings.providers,
    simulated: settings.simulated,
    release: settings.release,
    grouping: settings.grouping,
    lease: settings.leaseId === null ? undefined : { id: settings.leaseId },
    onError: fail,
  });
  return { db, writer };
}

function queue(writer: SqliteAnswerWriter, message: Extract<ToWriter, { kind: "writes" }>): void {
  for (const w of message.writes) {
    if (w.kind === "record") writer.write(w.record);
    else if (w.kind === "request") writer.request(w.sent);
    else if (w.kind === "block") writer.block(w.block);
    else writer.releaseClaims(w.leaseId, w.lookup, w.postcodes);
  }
}

function handle({ db, writer }: { db: Db; writer: SqliteAnswerWriter }, message: ToWriter): void {
  if (!failed)
    try {
      if (message.kind === "writes") queue(writer, message);
      else {
        writer.flush();
        if (message.kind === "flush") send({ kind: "flushed", seq: message.seq });
      }
    } catch (err) {
      fail(err);
    }
  if (message.kind === "close") {
    db.close();
    port.close();
  }
}

try {
  const opened = open();
  port.on("message", (message: ToWriter) => handle(opened, message));
  send({ kind: "ready" });
} catch (err) {
  fail(err);
  port.close();
}
