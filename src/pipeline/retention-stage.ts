// The start of every batch: answers past the retention are deleted (Ofcom's terms let a tool keep
// an answer at most a month; docs/retention.md). The arithmetic is src/plan/retention.ts.
import type { Logger } from "../log/logger.js";
import { expiryCutoff } from "../plan/retention.js";
import type { Store } from "../store/store.js";

const DAY_MS = 24 * 3600 * 1000;

export async function expireAnswers(store: Store, retentionMs: number | null, nowMs: number, log: Logger): Promise<number> {
  const cutoff = expiryCutoff(nowMs, retentionMs);
  if (cutoff === null) return 0;
  const deleted = await store.answers.expire(cutoff, new Date(nowMs).toISOString());
  if (deleted.answers + deleted.versions > 0)
    log.info(
      `retention: deleted ${deleted.answers} answer(s) and ${deleted.versions} version(s) the API last returned before ${cutoff} (--retention ${retentionMs! / DAY_MS} days)`,
      { event: "retention", expired: deleted.answers, versions: deleted.versions },
    );
  return deleted.answers;
}
