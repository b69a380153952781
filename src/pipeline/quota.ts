// The batch's side of the monthly quota: the ledger of this run's requests, the service's own
// "quota spent until" honoured before anything is sent, tonight's allowance for the planner, and
// what the plan deferred said in the log (and in the exit code, when postcodes are left without
// an answer). Each request is reserved in the shared ledger before it is sent, in chunks
// (quota-gate.ts), so stores sharing one ledger never overspend it together.
import type { Lookup } from "../contract/fields.js";
import { perLookup } from "../contract/lookups.js";
import type { LedgerEntry } from "../fetch/decide.js";
import type { StopControl } from "../fetch/stop.js";
import type { Logger } from "../log/logger.js";
import type { Plan, QuotaOptions } from "../plan/plan.js";
import { periodRule, quotaPeriod, replenishMs, type PeriodRule } from "../plan/quota-plan.js";
import { storedRules, usedInPeriods } from "../plan/quota-period.js";
import { describeShortfall, expiryShortfall } from "../plan/retention.js";
import { periodDays } from "../plan/capacity.js";
import type { AnswerWriter, Store } from "../store/store.js";
import type { BatchConfig } from "./config.js";
import { QuotaGate } from "./quota-gate.js";
import type { LeaseFence } from "./lease-fence.js";

export interface RunQuota {
  /** for planFetches: undefined without --monthly-quota */
  planOptions: QuotaOptions | undefined;
  /**
   * Records each request of the lookup in the ledger through the answers' writer (in the answers'
   * transaction of the same group, so that a request costs no commit of its own); a
   * quota answer blocks the lookup until it is replenished (`onBlocked` hears until when: the
   * shared pace blocks the key for everyone).
   */
  onRequest(
    lookup: Lookup,
    writer: Pick<AnswerWriter, "request" | "block">,
    onBlocked?: (untilMs: number) => void,
  ): (r: LedgerEntry) => void;
  /** the lookup's cap for this run: what the period has left, reserved in chunks; undefined without a quota for it */
  budget(lookup: Lookup): QuotaGate | undefined;
  /** Says what the plan deferred; postcodes left without an answer stop the run as a quota does (exit 3). */
  afterFetch(plan: Plan, stop: StopControl): void;
  /** Gives back what was reserved and not sent (what the gates never handed out, or put back); the rest stays counted. */
  giveBack(): Promise<void>;
  /**
   * The lookups whose quota period has turned since the run started (at `nowMs`) and whose plan left
   * work for a later period: planned again, their new period's quota may answer it tonight.
   */
  turnedWithWorkLeft(plan: Plan, nowMs: number): Lookup[];
}

/** What the run's quota reads: the lookups, the quota options, whether answers are simulated (they spend none), the retention. */
export type QuotaSettings = Pick<BatchConfig, "lookups" | "monthlyQuota" | "quotaResetDay" | "quotaPeriod" | "quotaStart" | "spendAll" | "simulate" | "retention" | "maxAge">;

export async function startRunQuota(
  store: Store,
  config: QuotaSettings,
  /** `fence`: the run's hold on its lease; once lost, nothing more is reserved or given back (what it holds counts as sent) */
  run: { runId: number; leaseId: number; fence?: LeaseFence },
  now: () => number,
  stop: StopControl,
  log: Logger,
): Promise<RunQuota> {
  const { runId, leaseId } = run;
  const startMs = now();
  // each lookup's own period: broadband's quota 403 says nothing of mobile's
  const rules = await storedRules(store, periodRule(config));
  const periods = perLookup((l) => quotaPeriod(startMs, rules[l]));
  const used = await usedInPeriods(store, rules, startMs, startMs);
  // The service said the quota is spent: asking again before it is replenished only collects 403s.
  for (const lookup of config.lookups) {
    const block = await store.ledger.blocked(lookup, new Date(startMs).toISOString());
    if (block) stop.stopLookup({ kind: "quota", lookup, message: `the service's quota is spent until ${block.until}; nothing is sent before` });
  }
  const limits = config.monthlyQuota ?? {};
  const guarded = <T>(write: () => Promise<T>, fallback: T) => (run.fence ? run.fence.guard(write, fallback) : write());
  const gates = new Map<Lookup, QuotaGate>();
  for (const lookup of config.lookups) {
    const limit = limits[lookup];
    if (limit !== undefined)
      gates.set(lookup, new QuotaGate({
        reserve: (n, period) => guarded(() => store.ledger.reserve({ leaseId, lookup, period, n, limit, nowMs: now() }), { granted: 0, left: 0 }),
        giveBack: (n, period) => guarded(() => store.ledger.giveBack({ leaseId, lookup, period, n }), undefined),
        // the period onRequest records a request sent now in
        current: () => quotaPeriod(now(), rules[lookup]).key,
      }, run.fence));
  }
  return {
    planOptions: config.monthlyQuota
      ? { limits, used, nowMs: startMs, rules, spendAll: config.spendAll }
      : undefined,
    onRequest: (lookup, writer, onBlocked) => (r) => {
      const at = now();
      const iso = new Date(at).toISOString();
      // the ledger counts what the real API's quota counts: a simulated request spends none of it; a
      // run that lost its lease writes nothing more, and what it reserved stays counted as sent
      if (!config.simulate && !run.fence?.lost)
        writer.request({ lookup, status: r.status, at: iso, period: quotaPeriod(at, rules[lookup]).key, runId, leaseId: gates.has(lookup) ? leaseId : null });
      const wait = r.quotaMessage === null ? null : replenishMs(r.quotaMessage);
      if (r.quotaMessage !== null && wait !== null) {
        writer.block({ lookup, until: new Date(at + wait).toISOString(), message: r.quotaMessage, runId });
        onBlocked?.(at + wait);
      }
    },
    budget: (lookup) => gates.get(lookup),
    // a run that lost its lease may have sent what it reserved without a ledger row: it stays counted
    giveBack: async () => {
      if (run.fence?.knownLost) return;
      // a simulated request spends none of the real quota: nothing taken was sent to it
      for (const [lookup, gate] of gates) await store.ledger.giveBack({ leaseId, lookup, n: unsentOf(gate, config.simulate) });
    },
    turnedWithWorkLeft: (plan, nowMs) =>
      config.lookups.filter((lookup) => {
        const d = plan.deferred.get(lookup);
        return limits[lookup] !== undefined && d !== undefined && d.unanswered + d.refreshes > 0 && quotaPeriod(nowMs, rules[lookup]).key !== periods[lookup].key;
      }),
    afterFetch: (plan, stopControl) => sayQuotaAfterFetch({ settings: config, limits, used, periods, rules, startMs, now, log }, plan, stopControl),
  };
}

/** What the run's quota says once the fetch is done: each lookup's allowance, the answers the quota lets expire, and the postcodes still waiting for it. */
function sayQuotaAfterFetch(
  q: { settings: QuotaSettings; limits: Partial<Record<Lookup, number>>; used: Record<Lookup, number>; periods: Record<Lookup, { key: string }>; rules: Record<Lookup, PeriodRule>; startMs: number; now: () => number; log: Logger },
  plan: Plan,
  stopControl: StopControl,
): void {
  const { settings, limits, used, periods, rules, startMs, now, log } = q;
  for (const lookup of settings.lookups) {
    const a = plan.allowance.get(lookup);
    const d = plan.deferred.get(lookup);
    if (!a || !d) continue;
    // a result line: cron's --quiet log keeps it, next to the run's summary
    log.result(
      `${lookup}: monthly quota ${limits[lookup]}, ${used[lookup]} used this period (since ${periods[lookup].key}) before this run; ` +
        `tonight's refresh allowance ${a.refreshShare}; ${d.refreshes} refreshes deferred to later nights` +
        (d.unanswered > 0 ? `; ${d.unanswered} postcodes without an answer wait for the quota` : ""),
      { event: "quota", lookup, quota: limits[lookup], used: used[lookup], allowance: a.refreshShare, deferred: d.refreshes, unanswered: d.unanswered },
    );
    const shortfall = expiryShortfall({ listSize: plan.postcodes, quota: limits[lookup]!, periodDays: periodDays(rules[lookup]), maxAgeMs: settings.maxAge, retentionMs: settings.retention, oldestAnswer: plan.oldestAnswer.get(lookup) ?? new Date(startMs).toISOString() });
    const line = describeShortfall(lookup, shortfall, plan.postcodes, settings.retention);
    if (line) log.result(line, { event: "expiry_shortfall", lookup, postcodes: shortfall.postcodes, from: shortfall.from });
    if (d.unanswered === 0) continue;
    const turned = quotaPeriod(now(), rules[lookup]);
    if (turned.key === periods[lookup].key)
      stopControl.stopLookup({ kind: "quota", lookup, message: `--monthly-quota: ${d.unanswered} postcodes wait for the next period's quota` });
    // the plan was made under the period before: the one begun since has its quota for them
    else
      stopControl.stopLookup({
        kind: "quota",
        lookup,
        periodTurned: true,
        message: `--monthly-quota: ${d.unanswered} postcodes were left for a later period by tonight's plan; the period that began ${turned.key} has its quota for them`,
      });
  }
}

/** What a gate's grants left unsent to the quota's API: the untaken ones, and on a simulated run the taken ones too. */
export function unsentOf(gate: Pick<QuotaGate, "untaken" | "taken">, simulate: boolean): number {
  return gate.untaken + (simulate ? gate.taken : 0);
}
