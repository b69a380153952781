// What the batch's thread and the SQLite writer's thread (writer-thread.ts, writer-worker.ts) say to
// each other. Everything here is plain data: a structured clone carries it across.
import type { Lookup } from "../../contract/fields.js";
import type { FinalRecord } from "../../contract/records.js";
import type { CommitGrouping } from "../commit-group.js";
import type { QuotaBlock, SentRequest } from "../types.js";

/** The writer's options as data: what AnswerWriterOptions says, less its functions. */
export interface WorkerSettings {
  path: string;
  providers: readonly string[];
  simulated: boolean;
  release: string | null;
  grouping: CommitGrouping | undefined;
  /** the lease the writes are made under (SQLite judges it by its row) */
  leaseId: number | null;
}

/** One queued write, in the order it came. */
export type QueuedWrite =
  | { kind: "record"; record: FinalRecord }
  | { kind: "request"; sent: SentRequest }
  | { kind: "block"; block: QuotaBlock }
  | { kind: "release"; leaseId: number; lookup: Lookup; postcodes: readonly string[] };

export type ToWriter =
  /** writes to queue */
  | { kind: "writes"; writes: QueuedWrite[] }
  /** commit what is queued now and answer `flushed` (or `failed`) with this number */
  | { kind: "flush"; seq: number }
  /** commit what is queued, close the database and end */
  | { kind: "close" };

/** A failure as data: which kind it was, and its one-line message. */
export interface SentError {
  kind: "lease-lost" | "database" | "other";
  message: string;
  leaseId?: number;
}

export type FromWriter =
  | { kind: "ready" }
  | { kind: "flushed"; seq: number }
  /** a commit failed: nothing more is written, and every flush waiting gets this */
  | { kind: "failed"; error: SentError };
