// A lookup's --monthly-quota cap for one run, taken from the shared ledger in chunks: one
// reservation (one commit) per chunk, not per request, and never more than the ledger grants.
import type { Reservation } from "../store/types.js";

/** Requests reserved at a time: few enough that a run holds little it may not send, enough to cost few commits. */
export const RESERVE_CHUNK = 25;

export class QuotaGate {
  private granted = 0;
  private spent = false;
  private refilling: Promise<void> | null = null;

  constructor(private readonly reserve: (n: number) => Promise<Reservation>) {}

  /** One request's worth of the quota; false once the ledger grants no more this period. */
  async take(): Promise<boolean> {
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
    }
    this.granted--;
    return true;
  }
}
