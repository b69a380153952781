// The quota period a run plans with: the options' rule, a rolling one anchored on what the
// gateway said when its quota 403 named the replenish time (stored as the lookup's quota block).
import type { Lookup } from "../contract/fields.js";
import type { Store } from "../store/store.js";
import { anchoredRule, type PeriodRule } from "./quota-plan.js";

/** The period rule, a rolling one anchored on the replenish time the gateway's last quota 403 named (stored as its block). */
export async function storedRule(store: Store, rule: PeriodRule, lookups: readonly Lookup[]): Promise<PeriodRule> {
  if (typeof rule === "number") return rule;
  // every block ever recorded: its time is a period's end even once it has passed
  const blocks = await Promise.all(lookups.map((l) => store.ledger.blocked(l, "")));
  return anchoredRule(rule, blocks.map((b) => b?.until ?? null));
}
