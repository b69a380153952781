// `npm run status` on a running batch: how far it is and when it should end, from its stored answers.
import type { Db } from "../store/db.js";
import { runningProgress as query, type RunningProgress } from "../store/run-progress.js";
import { formatEta } from "../log/progress.js";

export interface RunningView extends RunningProgress {
  toFetch: number;
  etaSeconds: number | null;
}

export function runningProgress(db: Db, now: number): RunningView | null {
  const p = query(db);
  if (!p) return null;
  const toFetch = Math.max(0, p.pairs - p.reused);
  const elapsed = now - Date.parse(p.startedAt);
  const etaSeconds = p.fetched > 0 && elapsed > 0 ? Math.round(((toFetch - p.fetched) * elapsed) / p.fetched / 1000) : null;
  return { ...p, toFetch, etaSeconds };
}

export function formatRunningProgress(view: RunningView | null): string {
  if (!view) return "";
  const pct = view.toFetch > 0 ? Math.floor((view.fetched / view.toFetch) * 100) : 100;
  return `\nRun ${view.runId} is running: ${view.fetched} of ${view.toFetch} lookups fetched (${pct}%), ${view.requests} requests, ETA ${formatEta(view.etaSeconds)}\n`;
}
