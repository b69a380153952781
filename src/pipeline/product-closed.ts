// Which lookups' products have answered before, as the store remembers it: tonight's list alone
// cannot say (a new list, or answers the retention has deleted). A product that answered and now
// gives the gateway's 404, a 410 or a refused key has closed (src/fetch/decide.ts); one that never
// answered points at a wrong base URL or key.
import type { Lookup } from "../contract/fields.js";
import type { Store } from "../store/store.js";

export async function productsAnswered(store: Pick<Store, "plan">, lookups: readonly Lookup[]): Promise<ReadonlySet<Lookup>> {
  const answered = await Promise.all(lookups.map((lookup) => store.plan.productAnswered(lookup)));
  return new Set(lookups.filter((_, i) => answered[i]));
}
