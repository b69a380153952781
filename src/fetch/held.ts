// A postcode whose network failure the outage monitor cannot judge yet (the attempts are failing
// on the network, too few of them to call it an outage) waits here: it is neither sent again nor
// counted against --retries until the API's health is settled. Its slot goes to the next postcode
// meanwhile, so an outage's first failures spread across postcodes, where the monitor sees them.
import type { Health } from "./outage.js";

/** The lookup's `concurrency` places: a postcode holds one while it sends, backs off or waits its probe turn. */
export class Slots {
  private free: number;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free++;
  }

  /** No place is taken: nothing is being sent, nor about to be. */
  get idle(): boolean {
    return this.free === this.size;
  }
}

/**
 * The postcodes waiting for the monitor's judgement, released all at once with the health it
 * settled on: their failures are judged on that, not on what the API does by the time they go on
 * (an outage that took them and has since ended must still not fail them).
 */
export class HeldPostcodes {
  private readonly waiting = new Set<(health: Health) => void>();

  /** Resolves with the settled health once released, null if the lookup stopped first (the postcode stays pending). */
  wait(signal: AbortSignal): Promise<Health | null> {
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const release = (health: Health) => {
        signal.removeEventListener("abort", abort);
        this.waiting.delete(release);
        resolve(health);
      };
      const abort = () => {
        this.waiting.delete(release);
        resolve(null);
      };
      this.waiting.add(release);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  get size(): number {
    return this.waiting.size;
  }

  releaseAll(health: Health): void {
    for (const release of [...this.waiting]) release(health);
  }
}
