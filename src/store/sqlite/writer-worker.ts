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

let nowMs = Date.now();
let failed = false;
function fail(err: unknown, seq: number | null): void {
  failed = true;
  send({ kind: "failed", error: sentError(err), seq });
}

function open(): { db: Db; writer: SqliteAnswerWriter } {
  const db = connect(settings.path);
  const writer = answerWriter(db, {
    providers: settings.providers,
    simulated: settings.simulated,
    release: settings.release,
    grouping: settings.grouping,
    lease: settings.leaseId === null ? undefined : { id: settings.leaseId, now: () => nowMs },
    onError: (err) => fail(err, null),
  });
  return { db, writer };
}

function handle({ db, writer }: { db: Db; writer: SqliteAnswerWriter }, message: ToWriter): void {
  if (message.nowMs !== null) nowMs = message.nowMs;
  if (message.kind === "writes") {
    if (failed) return;
    try {
      for (const w of message.writes) {
        if (w.kind === "record") writer.write(w.record);
        else if (w.kind === "request") writer.request(w.sent);
        else writer.block(w.block);
      }
    } catch (err) {
      if (!failed) fail(err, null);
    }
    return;
  }
  try {
    if (!failed) writer.flush();
    if (message.kind === "flush" && !failed) send({ kind: "flushed", seq: message.seq });
  } catch (err) {
    if (!failed) fail(err, message.kind === "flush" ? message.seq : null);
  }
  if (message.kind === "close") {
    db.close();
    send({ kind: "closed" });
    port.close();
  }
}

try {
  const opened = open();
  port.on("message", (message: ToWriter) => handle(opened, message));
  send({ kind: "ready" });
} catch (err) {
  fail(err, null);
  port.close();
}
