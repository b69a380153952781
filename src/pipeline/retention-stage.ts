// The start of every batch: answers past the retention are deleted (Ofcom's terms let a tool keep
// an answer at most a month; docs/retention.md). The arithmetic is src/plan/retention.ts. The pass
// returns once no file of the database holds the deleted text, or says why one still does.
import type { Clock } from "../fetch/clock.js";
import type { Logger } from "../log/logger.js";
import { expiryCutoff } from "../plan/retention.js";
import type { Store } from "../store/store.js";

const DAY_MS = 24 * 3600 * 1000;
/** How long the pass waits for a reader to end before it goes on and says the text is still there. */
export const ERASE_WAIT_MS = 60_000;
/** How often it tries again meanwhile. */
const ERASE_POLL_MS = 500;

export interface EraseWait {
  clock: Clock;
  /** default ERASE_WAIT_MS */
  boundMs?: number | undefined;
}

/** Returns how many answers and versions were deleted. */
export async function expireAnswers(store: Store, retentionMs: number | null, nowMs: number, log: Logger, wait: EraseWait): Promise<number> {
  const cutoff = expiryCutoff(nowMs, retentionMs);
  if (cutoff === null) return 0;
  const deleted = await store.answers.expire(cutoff, new Date(nowMs).toISOString());
  if (deleted.answers + deleted.versions > 0)
    log.info(
      `retention: deleted ${deleted.answers} answer(s) and ${deleted.versions} version(s) the API last returned before ${cutoff} (--retention ${retentionMs! / DAY_MS} days)`,
      { event: "retention", expired: deleted.answers, versions: deleted.versions },
    );
  if (!deleted.erased) await waitUntilErased(store, log, wait);
  return deleted.answers + deleted.versions;
}

/** Tries again until the deleted text has left the database's files, for at most the bound; then says it has not. */
async function waitUntilErased(store: Store, log: Logger, { clock, boundMs = ERASE_WAIT_MS }: EraseWait): Promise<void> {
  const started = clock.now();
  while (clock.now() - started < boundMs) {
    await clock.sleep(Math.min(ERASE_POLL_MS, boundMs - (clock.now() - started)));
    if (await store.answers.eraseExpired()) {
      log.info(`retention: waited ${seconds(clock.now() - started)} for another reader of ${store.location} to end before the deleted text left its files`, { event: "retention_erased" });
      return;
    }
  }
  log.warn(
    `retention: the deleted answers' text is still in ${store.location}'s files: another connection (a report, export or status still reading it) ` +
      `has held a read transaction for over ${seconds(boundMs)}, so the database could not be checkpointed; the text goes at the first checkpoint after that reader ends`,
    { event: "retention_not_erased" },
  );
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
