// The run's hold on its lease, as the pipeline sees it. The database refuses every write made under
// a lease that is no longer live (LeaseLostError); this is the other half: once the lease is lost
// (a renewal refused, a write refused, or more time gone since the last renewal than the lease
// lives), the run sends, claims and commits nothing more. The elapsed time is read from a monotonic
// clock, which runs on while the process is stopped (SIGSTOP): a machine resumed after its lease
// ran out stops before its first request, not after its first renewal.
import { performance } from "node:perf_hooks";
import { LeaseLostError } from "../store/types.js";

export class LeaseFence {
  private why: string | null = null;
  private heldUntil: number;

  /** `onLost`: told once, with why (the run stops there); `monotonic`: ms, tests inject it. */
  constructor(
    private readonly ttlMs: number,
    private readonly onLost: (why: string) => void,
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    this.heldUntil = monotonic() + ttlMs;
  }

  /** A renewal sent at `sentAt` (this fence's monotonic time) succeeded. */
  renewed(sentAt: number): void {
    this.heldUntil = Math.max(this.heldUntil, sentAt + this.ttlMs);
  }

  /** The monotonic time now, for `renewed`. */
  mark(): number {
    return this.monotonic();
  }

  /** Lost and said so already (no clock is read: for the run's end, after a long report stage). */
  get knownLost(): boolean {
    return this.why !== null;
  }

  get lost(): boolean {
    if (this.why === null && this.monotonic() >= this.heldUntil) this.lose("it was not renewed within its time to live (was this process paused?)");
    return this.why !== null;
  }

  lose(why: string): void {
    if (this.why !== null) return;
    this.why = why;
    this.onLost(why);
  }

  /** The database refused a write under the lease (LeaseLostError). */
  writeRefused(): void {
    this.lose("the database refused a write under it: it expired (another batch may have taken over its work)");
  }

  /**
   * Runs `work`; a write the database refused for the lease loses it, and `fallback` stands in. Once
   * the lease is lost any failure is moot (a paused process finds its connection ended by the server).
   */
  async guard<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof LeaseLostError) && !this.lost) throw err;
      this.writeRefused();
      return fallback;
    }
  }
}
