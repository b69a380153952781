// Probes cost only what they must: a probe re-fetches a fresh answer to notice a new
// release, so a run whose own fetches already tell needs none, and otherwise one round a day is
// enough. A run that would send a lookup nothing still learns whether its key is accepted: one
// probe, when no answer of it was returned today (a refused key then fails the night, not the
// night that next needs it). Pure: the planner passes in what it knows, and records the check the run makes.
import type { Lookup } from "../contract/fields.js";
import type { CheckedBy } from "../store/types.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";

export interface ProbeSituation {
  lookup: Lookup;
  /** --probe: the size of a round (0: never probe) */
  probe: number;
  /** fresh answers: what a probe could re-fetch */
  fresh: number;
  /** of those, answers old enough to probe (younger ones were just asked); all of them when not given */
  probeable?: number;
  /** postcodes the run fetches anyway: new, failed, incomplete, refresh, release, age */
  fetching: number;
  /** of those, postcodes answered before and fetched again (refresh, release, age) */
  refetching: number;
  /** answers of an older release are being replaced: their re-fetches are the check */
  replacingRelease: boolean;
  /** the last check of the lookup's release (ISO), or null */
  lastCheck: string | null;
  /** the run's start (ISO) */
  now: string;
  /**
   * the newest time (ISO) the API returned one of the lookup's fresh answers: when its key was last
   * seen accepted; null when no fresh answer has one; not given: no key check (a simulated run's
   * key is the bundled simulator's own)
   */
  lastAccepted?: string | null;
}

export interface ProbeDecision {
  /** fresh answers to re-fetch as probes */
  probes: number;
  /** how the run checks the release, recorded when the lookup's fetching ends unstopped; null: it does not */
  check: CheckedBy | null;
  /** why, in a few words */
  why: string;
  /** one probe only to learn whether the key is still accepted: it may take an answer younger than a day */
  keyCheck?: true;
}

const utcDay = (iso: string) => iso.slice(0, 10);

export function probeRule(s: ProbeSituation): ProbeDecision {
  return withKeyCheck(s, releaseProbes(s));
}

/** A lookup the run sends nothing, whose key no answer has shown accepted today: one probe (--probe 0: none at all). */
function withKeyCheck(s: ProbeSituation, d: ProbeDecision): ProbeDecision {
  if (s.probe === 0 || d.probes > 0 || s.fetching > 0 || s.fresh === 0 || s.lastAccepted === undefined) return d;
  if (s.lastAccepted !== null && utcDay(s.lastAccepted) === utcDay(s.now)) return d;
  return { probes: 1, check: d.check, why: `a key check: no answer accepted today (${d.why})`, keyCheck: true };
}

function releaseProbes(s: ProbeSituation): ProbeDecision {
  if (s.probe === 0) return { probes: 0, check: null, why: "--probe 0" };
  if (s.replacingRelease) return { probes: 0, check: "answers", why: "answers of an older release are being replaced" };
  if (s.fresh === 0) return { probes: 0, check: s.fetching > 0 ? "answers" : null, why: "no fresh answer to probe" };
  // Every mobile answer names its release (DBName): any the run fetches tells what a probe would.
  if (LOOKUP_SPECS[s.lookup].namesRelease && s.fetching > 0) return { probes: 0, check: "answers", why: "the run's own mobile answers name their release" };
  // Broadband answers name none: only answers fetched again can show a change, as probes do.
  if (s.refetching >= s.probe) return { probes: 0, check: "answers", why: `the run fetches ${s.refetching} answered postcodes again` };
  if (s.lastCheck !== null && utcDay(s.lastCheck) === utcDay(s.now)) return { probes: 0, check: null, why: `the release was checked today (${s.lastCheck})` };
  const probeable = s.probeable ?? s.fresh;
  if (probeable === 0) return { probes: 0, check: null, why: "every fresh answer is younger than a day" };
  return { probes: Math.min(probeable, s.probe - s.refetching), check: "probes", why: "one probe round today" };
}
