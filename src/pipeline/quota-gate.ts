// A lookup's --monthly-quota cap for one run, taken from the shared ledger in chunks: one
// reservation (one commit) per chunk, not per request, and never more than the ledger grants.
import type { Reservation } from "../store/types.js";

/** Requests reserved at a time: few enough that a run holds little it may not send, enough to cost few commits. */
export const RESERVE_CHUNK = 25;

export class QuotaGate {
  private granted = 0;
  private spent = false;
  private refilling: Promise<void> | null = null;

  /** `fence`: once the run's lease is lost, what is granted here is spent no more (the ledger counts it as sent) */
  constructor(
    private readonly reserve: (n: number) => Promise<Reservation>,
    private readonly fence: { readonly lost: boolean } = { lost: false },
  ) {}

  /** One request's worth of the quota; false once the ledger grants no more this period, or the lease is lost. */
  async take(): Promise<boolean> {
    if (this.fence.lost) return false;
    while (this.granted === 0) {
      if (this.spent) return false;
      // workers waiting at once share one reservation
      this.refilling ??= this.reserve(RESERVE_CHUNK).then(
        (r) => {
          this.granted += r.granted;
          if (r.granted === 0) this.spent = true;
        },
      ).finally(() => (this.refilling = null));
      await this.refilling;
      if (this.fence.lost) return false;
    }
    this.granted--;
    return true;
  }
}
