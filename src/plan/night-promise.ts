// What the nights ahead promise, read from the store: one lookup's rehearsal (future-nights.ts) from
// the stored answers of the last run's list, with the quota, period, --max-age, retention and
// --probe that run was started with. The reports' "by DATE" and `status`'s read it, so a date is
// one the planner keeps; a list beyond the capacity (capacity.ts) gets none.
import type { Lookup } from "../contract/fields.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";
import type { Store } from "../store/store.js";
import type { LastRunSettings } from "../store/types.js";
import { futureNights, type FutureNights, type StoredAnswer } from "./future-nights.js";
import type { PeriodRule } from "./quota-plan.js";
import { DEFAULT_PROBE } from "./plan.js";

const DAY_MS = 24 * 3600 * 1000;

export interface NightPace {
  quota: number;
  /** requests the first night's period has used */
  used: number;
  rule: PeriodRule;
  maxAgeMs: number;
  retentionMs: number | null;
  /** the first night that may fetch (ms): the rehearsal's nights start that day, at the last run's hour */
  nextNightMs: number;
  /** the first moment a night may start (now, or when the service's block ends), when later than nextNightMs */
  earliestMs?: number;
}

/** The rehearsal's first night: the first at the last run's hour from when a night may next start. */
export const firstRehearsedNight = (pace: NightPace, last: LastRunSettings): number =>
  nightAtRunHour(Math.max(pace.nextNightMs, pace.earliestMs ?? pace.nextNightMs), last.startedAt);

/** The first moment at or after `fromMs` at the hour the last run started: nights keep their hour, and one already past is not had again. */
export function nightAtRunHour(fromMs: number, lastStartedAt: string): number {
  const hour = Date.parse(lastStartedAt) % DAY_MS;
  const night = Math.floor(fromMs / DAY_MS) * DAY_MS + hour;
  return night < fromMs ? night + DAY_MS : night;
}

/** The last run's list of one lookup, each postcode in the state the planner will find it in on the night `nightMs`. */
export function lastRunCandidates(store: Store, last: LastRunSettings, lookup: Lookup, nightMs: number, maxAgeMs: number) {
  return store.plan.candidates({
    runId: last.runId,
    lookup,
    freshSince: new Date(nightMs - maxAgeMs).toISOString(),
    refreshSince: null,
    providers: last.providers,
    simulated: last.simulated,
  });
}

/** The last run's list of one lookup: its size and its stored answers, as the planner will see them. */
export async function storedAnswers(store: Store, last: LastRunSettings, lookup: Lookup, nightMs: number, maxAgeMs: number): Promise<{ listSize: number; answers: StoredAnswer[] }> {
  const candidates = await lastRunCandidates(store, last, lookup, nightMs, maxAgeMs);
  const answers: StoredAnswer[] = [];
  for (const c of candidates)
    if (c.fetchedAt !== null && (c.state === "fresh" || c.state === "age" || c.state === "release" || c.state === "refresh"))
      answers.push({ at: Date.parse(c.fetchedAt), stale: c.state === "release" || c.state === "refresh" });
  return { listSize: candidates.length, answers };
}

/** One lookup's nights ahead from the store, until the list is all answered (or also fresh). */
export async function rehearseNights(
  store: Store,
  last: LastRunSettings,
  lookup: Lookup,
  pace: NightPace,
  until: "answered" | "fresh",
  /** the list as storedAnswers read it at the first night, when the caller has it */
  stored?: { listSize: number; answers: StoredAnswer[] },
): Promise<FutureNights & { listSize: number }> {
  const firstNightMs = firstRehearsedNight(pace, last);
  const { listSize, answers } = stored ?? (await storedAnswers(store, last, lookup, firstNightMs, pace.maxAgeMs));
  const a = last.args;
  const nights = futureNights(
    {
      listSize,
      answers,
      quota: pace.quota,
      used: pace.used,
      rule: pace.rule,
      spendAll: a.spendAll === true,
      maxAgeMs: pace.maxAgeMs,
      retentionMs: pace.retentionMs,
      firstNightMs,
      probe: a.refresh === true ? 0 : typeof a.probe === "number" ? a.probe : DEFAULT_PROBE,
      namesRelease: LOOKUP_SPECS[lookup].namesRelease,
    },
    until,
  );
  return { ...nights, listSize };
}
