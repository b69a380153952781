// A lookup's --monthly-quota cap for one run, taken from the shared ledger in chunks: one
// reservation (one commit) per chunk, not per request, and never more than the ledger grants.
// A grant counts in the quota period it was reserved in: once the period turns, what is left of
// it is given back there and the next request is reserved in the new period, where it is recorded.
import type { Reservation } from "../store/types.js";

/** Requests reserved at a time: few enough that a run holds little it may not send, enough to cost few commits. */
export const RESERVE_CHUNK = 25;

/** Requests reserved and not yet taken, in the quota period whose ledger counts them. */
export interface Grant {
  readonly period: string;
  readonly left: number;
}

/** The ledger as the gate uses it, in the period a request sent now counts in (`current`). */
export interface GateLedger {
  reserve(n: number, period: string): Promise<Reservation>;
  /** Gives back `n` reserved in `period` and never taken. */
  giveBack(n: number, period: string): Promise<void>;
  current(): string;
}

/**
 * What a take does for a request sent in `period`: spend the grant only in its own period (the
 * ledger records the request there); give back what is left of an earlier period's first; reserve
 * unless the ledger granted nothing in this period already.
 */
export function grantStep(grant: Grant, spentIn: string | null, period: string): "take" | "give back" | "reserve" | "spent" {
  if (grant.left > 0) return grant.period === period ? "take" : "give back";
  return spentIn === period ? "spent" : "reserve";
}

const NO_GRANT: Grant = { period: "", left: 0 };

export class QuotaGate {
  private grant: Grant = NO_GRANT;
  /** the period whose ledger granted nothing more */
  private spentIn: string | null = null;
  private handedOut = 0;
  private refilling: Promise<void> | null = null;

  /** `fence`: once the run's lease is lost, what is granted here is spent no more (the ledger counts it as sent) */
  constructor(
    private readonly ledger: GateLedger,
    private readonly fence: { readonly lost: boolean } = { lost: false },
  ) {}

  /** One request's worth of the quota; false once the ledger grants no more this period, or the lease is lost. */
  async take(): Promise<boolean> {
    for (;;) {
      if (this.fence.lost) return false;
      const period = this.ledger.current();
      const step = grantStep(this.grant, this.spentIn, period);
      if (step === "spent") return false;
      if (step === "take") {
        this.grant = { period, left: this.grant.left - 1 };
        this.handedOut++;
        return true;
      }
      // workers waiting at once share one reservation
      this.refilling ??= this.refill(period).finally(() => (this.refilling = null));
      await this.refilling;
    }
  }

  private async refill(period: string): Promise<void> {
    const old = this.grant;
    this.grant = NO_GRANT;
    if (old.left > 0 && old.period !== period) await this.ledger.giveBack(old.left, old.period);
    if (this.fence.lost) return;
    const r = await this.ledger.reserve(RESERVE_CHUNK, period);
    this.grant = { period, left: r.granted };
    if (r.granted === 0) this.spentIn = period;
  }

  /** A request taken and then not sent (stopped first, or it never reached the API): its grant is untaken again. */
  putBack(): void {
    this.grant = { period: this.grant.period, left: this.grant.left + 1 };
    this.handedOut--;
  }

  /** Granted and never handed out, or put back: what the run holds reserved and did not send. */
  get untaken(): number {
    return this.grant.left;
  }

  /** Handed out and not put back: requests sent (or, once the lease is lost, perhaps sent). */
  get taken(): number {
    return this.handedOut;
  }
}
