// `npm run status` on a running batch: how far it is and when it should end, from its stored answers
// (its words: status-text.ts).
import type { Store } from "../store/store.js";
import type { RunningProgress } from "../store/types.js";
import { etaSeconds } from "../log/progress.js";

export interface RunningView extends RunningProgress {
  etaSeconds: number | null;
}

export async function runningProgress(store: Store, now: number): Promise<RunningView | null> {
  const p = await store.status.running();
  if (!p) return null;
  const elapsed = now - Date.parse(p.startedAt);
  return { ...p, etaSeconds: elapsed > 0 ? etaSeconds(elapsed, p.fetched, p.toFetch) : null };
}
