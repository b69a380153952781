// The SQLite answer writer on a thread of its own (writer-worker.ts). The batch's thread only hands
// the writes over, those of one event-loop turn in one message; the worker queues and commits them
// in the same groups and transactions as the writer on the batch's thread would (answers.ts), on its
// own connection to the file. A flush waits for the worker to commit what was handed over before it,
// so a caller that flushes (claims given back, the fetch's end) finds the answers stored, and a batch
// fetching faster than the worker stores waits for it there rather than queueing without end.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { DatabaseError, LeaseLostError, type AnswerWriterOptions } from "../types.js";
import type { AnswerWriter } from "../store.js";
import type { FromWriter, QueuedWrite, SentError, ToWriter, WorkerSettings } from "./writer-messages.js";

function receivedError(e: SentError): Error {
  if (e.kind === "lease-lost") return new LeaseLostError(e.leaseId ?? 0);
  return e.kind === "database" ? new DatabaseError(e.message) : new Error(e.message);
}

/**
 * The worker holds little (its statements, one group of answers): a small young generation makes V8
 * collect its garbage early, where by default a second heap would grow as the batch's does.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

/**
 * The worker's module beside this one, as this module was loaded: JavaScript from a build, or
 * TypeScript (npm run, the tests). A TypeScript thread loads its modules through tsx's require hook,
 * registered by the thread itself, without the process's flags: a `--import tsx` inherited from them
 * registers it too late for the thread's first module as often as not (Node 20), and tsx's ESM
 * loader runs on a thread of its own, about 20 MB more for the process. The worker's modules use
 * nothing only ESM has (no import.meta, no top-level await, CommonJS packages).
 */
function startWorker(settings: WorkerSettings): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL("./writer-worker.js", here), { workerData: settings, resourceLimits: WORKER_HEAP });
  const entry = fileURLToPath(new URL("./writer-worker.ts", here));
  const code = `const load = require("node:module").createRequire(${JSON.stringify(entry)}); load("tsx/cjs/api").register(); load(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, execArgv: [], workerData: settings, resourceLimits: WORKER_HEAP });
}

/** Starts the worker and waits until it has the database open (or says why it could not); its close() ends the thread. */
export function threadedAnswerWriter(path: string, options: AnswerWriterOptions): Promise<AnswerWriter> {
  const settings: WorkerSettings = {
    path,
    providers: [...options.providers],
    simulated: options.simulated ?? false,
    release: options.release ?? null,
    grouping: options.grouping,
    leaseId: options.lease?.id ?? null,
  };
  const link = new WriterLink(startWorker(settings), options);
  return link.ready.then(() => link.writer());
}

class WriterLink {
  readonly ready: Promise<void>;
  private pending: QueuedWrite[] = [];
  private posting: NodeJS.Immediate | null = null;
  private failure: Error | null = null;
  private seq = 0;
  private readonly flushes = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private readonly exited: Promise<void>;
  private readyCallbacks: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private closing = false;
  private started = false;

  constructor(
    private readonly worker: Worker,
    private readonly options: AnswerWriterOptions,
  ) {
    this.ready = new Promise((resolve, reject) => (this.readyCallbacks = { resolve, reject }));
    this.exited = new Promise((resolve) => worker.once("exit", () => resolve()));
    worker.on("message", (m: FromWriter) => this.received(m));
    worker.on("error", (err) => this.failed(err));
    worker.once("exit", () => {
      if (!this.closing) this.failed(new Error("the answer writer's thread ended before it was closed"));
    });
  }

  private post(message: ToWriter): void {
    this.worker.postMessage(message);
  }

  private received(m: FromWriter): void {
    if (m.kind === "flushed") this.settle(m.seq, null);
    else if (m.kind === "failed") this.failed(receivedError(m.error));
    else {
      this.started = true;
      this.readyCallbacks?.resolve();
    }
  }

  private settle(seq: number, err: Error | null): void {
    const f = this.flushes.get(seq);
    this.flushes.delete(seq);
    if (!f) return;
    if (err) f.reject(err);
    else f.resolve();
  }

  /**
   * The first failure stops the writer: every flush waiting, and every later call, gets it. One
   * before the worker was ready is openWriter's own rejection, not a deferred commit's (onError).
   */
  private failed(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    if (!this.started) return this.readyCallbacks?.reject(err);
    for (const seq of [...this.flushes.keys()]) this.settle(seq, err);
    this.options.onError?.(err);
  }

  private queue(write: QueuedWrite): void {
    if (this.failure) throw this.failure;
    if (this.closing) throw new Error("the answer writer is closed");
    this.pending.push(write);
    this.posting ??= setImmediate(() => this.handOver());
  }

  /** The writes of this turn, in one message. */
  private handOver(): void {
    if (this.posting) clearImmediate(this.posting);
    this.posting = null;
    if (this.pending.length === 0 || this.failure) return;
    this.post({ kind: "writes", writes: this.pending });
    this.pending = [];
  }

  private flush(): Promise<void> {
    if (this.closing)
      return this.exited.then(() => {
        if (this.failure) throw this.failure;
      });
    this.handOver();
    if (this.failure) return Promise.reject(this.failure);
    const seq = ++this.seq;
    const done = new Promise<void>((resolve, reject) => this.flushes.set(seq, { resolve, reject }));
    this.post({ kind: "flush", seq });
    return done;
  }

  writer(): AnswerWriter {
    return {
      write: (record) => this.queue({ kind: "record", record }),
      request: (sent) => this.queue({ kind: "request", sent }),
      block: (block) => this.queue({ kind: "block", block }),
      releaseClaims: (leaseId, lookup, postcodes) => this.queue({ kind: "release", leaseId, lookup, postcodes: [...postcodes] }),
      flush: () => this.flush(),
      close: () => this.close(),
      ownThread: true,
    };
  }

  /** Commits what is queued, then ends the thread; a failure was already told to onError. */
  async close(): Promise<void> {
    if (this.closing) return this.exited;
    this.handOver();
    this.closing = true;
    if (!this.failure) this.post({ kind: "close" });
    else await this.worker.terminate();
    await this.exited;
  }
}
