// The batch's side of the monthly quota: the ledger of this run's requests, the service's own
// "quota spent until" honoured before anything is sent, tonight's allowance for the planner, and
// what the plan deferred said in the log (and in the exit code, when postcodes are left without
// an answer).
import type { Lookup } from "../spec/fields.js";
import { RequestBudget } from "../fetch/budget.js";
import type { StopControl } from "../fetch/stop.js";
import type { Logger } from "../log/logger.js";
import type { Plan, QuotaOptions } from "../plan/plan.js";
import { quotaPeriod, replenishMs } from "../plan/quota-plan.js";
import type { Db } from "../store/sqlite/db.js";
import { requestLedger } from "../store/sqlite/ledger.js";
import type { BatchConfig } from "./config.js";
import { perLookup } from "../spec/lookups.js";

export interface RunQuota {
  /** for planFetches: undefined without --monthly-quota */
  planOptions: QuotaOptions | undefined;
  /**
   * Records each request of the lookup in the ledger; a quota answer blocks the lookup until it is
   * replenished. `queue` runs the ledger's writes (default: at once); the batch queues them with the
   * answers' transaction, so that a request costs no commit of its own.
   */
  onRequest(lookup: Lookup, queue?: (write: () => void) => void): (r: { status: number | null; quotaMessage: string | null }) => void;
  /** the lookup's cap for this run: what the period has left */
  budget(lookup: Lookup): RequestBudget | undefined;
  /** Says what the plan deferred; postcodes left without an answer stop the run as a quota does (exit 3). */
  afterFetch(plan: Plan, stop: StopControl): void;
}

export function startRunQuota(
  db: Db,
  config: Pick<BatchConfig, "lookups" | "monthlyQuota" | "quotaResetDay" | "spendAll" | "simulate">,
  runId: number,
  now: () => number,
  stop: StopControl,
  log: Logger,
): RunQuota {
  const ledger = requestLedger(db, runId);
  const startMs = now();
  const period = quotaPeriod(startMs, config.quotaResetDay);
  const used = perLookup((l) => ledger.used(l, period.key));
  // The service said the quota is spent: asking again before it is replenished only collects 403s.
  for (const lookup of config.lookups) {
    const block = ledger.blocked(lookup, new Date(startMs).toISOString());
    if (block) stop.stopLookup({ kind: "quota", lookup, message: `the service's quota is spent until ${block.until}; nothing is sent before` });
  }
  const limits = config.monthlyQuota ?? {};
  return {
    planOptions: config.monthlyQuota
      ? { limits, used, nowMs: startMs, resetDay: config.quotaResetDay, spendAll: config.spendAll }
      : undefined,
    onRequest:
      (lookup, queue = (write) => write()) =>
      (r) => {
        const at = now();
        const sent = { lookup, status: r.status, at: new Date(at).toISOString() };
        const period = quotaPeriod(at, config.quotaResetDay).key;
        const wait = r.quotaMessage === null ? null : replenishMs(r.quotaMessage);
        const message = r.quotaMessage;
        queue(() => {
          // the ledger counts what the real API's quota counts: a simulated request spends none of it
          if (!config.simulate) ledger.record(sent, period);
          if (message !== null && wait !== null) ledger.block(lookup, new Date(at + wait).toISOString(), message);
        });
      },
    budget: (lookup) => {
      const limit = limits[lookup];
      return limit === undefined ? undefined : new RequestBudget(Math.max(0, limit - used[lookup]));
    },
    afterFetch(plan, stopControl) {
      for (const lookup of config.lookups) {
        const a = plan.allowance.get(lookup);
        const d = plan.deferred.get(lookup);
        if (!a || !d) continue;
        // a result line: cron's --quiet log keeps it, next to the run's summary
        log.result(
          `${lookup}: monthly quota ${limits[lookup]}, ${used[lookup]} used this period (since ${period.key}) before this run; ` +
            `tonight's refresh allowance ${a.refreshShare}; ${d.refreshes} refreshes deferred to later nights` +
            (d.unanswered > 0 ? `; ${d.unanswered} postcodes without an answer wait for the quota` : ""),
          { event: "quota", lookup, quota: limits[lookup], used: used[lookup], allowance: a.refreshShare, deferred: d.refreshes, unanswered: d.unanswered },
        );
        if (d.unanswered > 0)
          stopControl.stopLookup({ kind: "quota", lookup, message: `--monthly-quota: ${d.unanswered} postcodes wait for the next period's quota` });
      }
    },
  };
}
