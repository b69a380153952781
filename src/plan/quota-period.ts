// The quota periods a run plans with: the options' rule, a rolling one anchored on what the
// gateway said when its quota 403 named the replenish time (stored as the lookup's quota block).
// Broadband and mobile are separate products, each with its own key and its own quota period: a
// lookup's period is anchored on its own block only, and its ledger is read for its own period.
import { LOOKUPS, type Lookup } from "../contract/fields.js";
import { perLookup } from "../contract/lookups.js";
import type { Store } from "../store/store.js";
import { anchoredRule, periodRule, quotaPeriod, type PeriodRule } from "./quota-plan.js";

/** Each lookup's period rule: rolling ones anchored on the replenish time the lookup's own last quota 403 named (stored as its block). */
export async function storedRules(store: Store, rule: PeriodRule): Promise<Record<Lookup, PeriodRule>> {
  if (typeof rule === "number") return perLookup(() => rule);
  // every block ever recorded: its time is a period's end even once it has passed
  const anchors = new Map(await Promise.all(LOOKUPS.map(async (l) => [l, (await store.ledger.blocked(l, ""))?.until ?? null] as const)));
  return perLookup((l) => anchoredRule(rule, anchors.get(l) ?? null));
}

/** What each lookup's ledger counts in its own period holding `atMs`, as it stands at `nowMs` (live reservations count). */
export async function usedInPeriods(store: Store, rules: Record<Lookup, PeriodRule>, atMs: number, nowMs: number): Promise<Record<Lookup, number>> {
  const used = perLookup(() => 0);
  for (const lookup of LOOKUPS) used[lookup] = (await store.ledger.figures(quotaPeriod(atMs, rules[lookup]).key, nowMs)).used[lookup];
  return used;
}

/** Each lookup's period rule from a stored run's arguments (its --quota-period, --quota-start, --quota-reset-day), anchored as storedRules does. */
export function storedRulesOfArgs(store: Store, a: Record<string, unknown>): Promise<Record<Lookup, PeriodRule>> {
  return storedRules(
    store,
    periodRule({
      quotaPeriod: typeof a.quotaPeriod === "number" ? a.quotaPeriod : null,
      quotaStart: typeof a.quotaStart === "number" ? a.quotaStart : null,
      quotaResetDay: typeof a.quotaResetDay === "number" ? a.quotaResetDay : 1,
    }),
  );
}
