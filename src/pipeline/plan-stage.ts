// The plan stage: when the plan is made (what other runs fetch after it is reused), the month's
// quota for this run, and each lookup's postcodes to fetch, said in the run's plan line.
import { describeReasons, planFetches, type Plan } from "../plan/plan.js";
import { expiringBefore } from "../plan/retention.js";
import type { Lookup } from "../contract/fields.js";
import type { BatchConfig } from "./config.js";
import { productsAnswered } from "./product-closed.js";
import { startRunQuota, type QuotaSettings, type RunQuota } from "./quota.js";
import { nowIso, type OpenedRun } from "./run.js";

/** How long an answer may take from arrival to commit, on a busy machine, for planTime. */
const COMMIT_SLACK_MS = 30_000;

/** What the plan stage hands on to the fetch and finish stages. */
export interface Planned {
  plan: Plan;
  /** when the plan was made (ISO): what other runs fetch after it is reused */
  plannedAt: string;
  /** the month's request ledger and tonight's allowance (--monthly-quota) */
  quota: RunQuota;
  /** the lookups whose product has answered before (product-closed.ts) */
  answered: ReadonlySet<Lookup>;
}

/** What the plan reads: which answers are fresh, what to probe and in which order, and the quota's settings. */
export type PlanSettings = QuotaSettings &
  Pick<BatchConfig, "maxAge" | "refresh" | "providers" | "probe" | "order" | "groupBy" | "openData" | "openDataPremises">;

export async function planStage(run: OpenedRun, settings: PlanSettings, runId: number, input: { inputRows: number; rejects: number }): Promise<Planned> {
  const { clock } = run;
  // the stages before (reading a large list, importing open data) may have kept the timer from firing
  await run.keeper.renewIfDue();
  const plannedAt = await planTime(run);
  const quota = await startRunQuota(run.store, settings, { runId, leaseId: run.lease.id, fence: run.fence }, () => clock.now(), run.stop, run.log);
  const plan = await planFetches(run.store, {
    runId,
    lookups: settings.lookups,
    freshSince: new Date(clock.now() - settings.maxAge).toISOString(),
    refresh: settings.refresh,
    providers: settings.providers,
    simulated: settings.simulate,
    now: nowIso(run),
    probe: settings.probe,
    order: settings.order,
    groupBy: settings.groupBy,
    expiringBefore: expiringBefore(clock.now(), settings.retention),
    quota: quota.planOptions,
    openData: settings.openData !== null ? settings.openDataPremises : undefined,
    // a whole country's plan outlasts the lease, and on SQLite the keeper's timer cannot fire meanwhile
    between: () => run.keeper.renewIfDue(),
  });
  logPlan(run, settings.lookups, runId, input, plan);
  return { plan, plannedAt, quota, answered: await productsAnswered(run.store, settings.lookups) };
}

/**
 * Since when answers other runs store count as fetched meanwhile (reused, not fetched). An answer
 * is timed when it arrives and committed a moment later, so one that arrived just before this plan
 * may be missing from it: while other batches run, the mark goes back a little to cover that. Alone
 * on the store (SQLite always), it is now, and a run fetches all it planned.
 */
async function planTime(run: OpenedRun): Promise<string> {
  const now = run.clock.now();
  const others = (await run.store.leases.live(now)).some((l) => l.id !== run.lease.id);
  return new Date(others ? now - COMMIT_SLACK_MS : now).toISOString();
}

/** The run's plan line (a milestone: --quiet keeps it), and what Ofcom's open data said of the new postcodes. */
function logPlan({ log }: OpenedRun, lookups: BatchConfig["lookups"], runId: number, { inputRows, rejects }: { inputRows: number; rejects: number }, plan: Plan): void {
  log.milestone(
    "info",
    `run ${runId}: ${inputRows} input rows, ${plan.postcodes} unique postcodes, ${rejects} rejected; ` +
      lookups
        .map((l) => {
          const probes = plan.probes.get(l);
          const why = plan.reused.get(l)! > 0 && probes && probes.probes === 0 && probes.why !== "--probe 0" ? ` (no probes: ${probes.why})` : "";
          return `${l}: ${plan.toFetch.get(l)!.length} to fetch (${describeReasons(plan.reasons.get(l)!)}), ${plan.reused.get(l)} fresh${why}`;
        })
        .join("; "),
    { event: "plan", runId, inputRows, postcodes: plan.postcodes, rejects },
  );
  for (const [lookup, c] of plan.openDataNew)
    if (c.multiBand + c.singleBand + c.notListed > 0)
      log.info(
        `${lookup}: of ${c.multiBand + c.singleBand + c.notListed} new postcodes, Ofcom's open data puts ${c.multiBand} in more than one speed band (fetched first), ` +
          `${c.singleBand} wholly in one (fetched after), ${c.notListed} not listed`,
        { event: "plan_open_data", lookup, ...c },
      );
}
