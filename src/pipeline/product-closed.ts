// Whether a lookup's product has answered before: the stored answers the plan found for it. A
// product that answered and now gives the gateway's 404, a 410 or a refused key has closed
// (src/fetch/decide.ts); one that never answered points at a wrong base URL or key.
import type { Lookup } from "../contract/fields.js";
import type { Plan } from "../plan/plan.js";

export function answeredBefore(plan: Pick<Plan, "reused" | "reasons">, lookup: Lookup): boolean {
  const r = plan.reasons.get(lookup);
  const refetched = r ? r.refresh + r.expiring + r.release + r.age + r.probe : 0;
  return (plan.reused.get(lookup) ?? 0) + refetched > 0;
}
