// Client-side pacing: request starts are spaced evenly so a lookup never exceeds its rate,
// and a server enforcing the same per-window limit never needs to send 429. With a shared pace
// (the store's, per lookup and key), each start also takes the next slot of everyone
// using the key, and a 429 pauses them all.
import type { Clock } from "./clock.js";

/** The pace shared by every holder of the lookup's key (the batch binds the store's to one lookup and key). */
export interface SharedPace {
  /** The next start slot at least `intervalMs` after the last one given; blockedUntilMs: the key's quota is spent until then. */
  nextSlot(intervalMs: number, nowMs: number): Promise<{ startAtMs: number; blockedUntilMs: number | null }>;
  /** A 429: nobody with the key starts before `untilMs`. */
  slowDown(untilMs: number): Promise<void>;
}

export interface PacerOptions {
  /** requests per window */
  rate: number;
  /** window length; the API's limits are per minute */
  windowMs: number;
  /** how far a 429 slows the pace (multiplied into the interval), and the slowest it may get */
  slowdown?: number;
  maxSlowdown?: number;
  /**
   * Time added to the window (default 1% of it, at least 20 ms): the server counts arrivals, not
   * starts, and a request that starts exactly one window after another can arrive less than a
   * window later.
   */
  marginMs?: number;
}

/** a shared slot reached late is given up at most twice */
const MAX_SLOT_ASKS = 3;

export class Pacer {
  private readonly baseInterval: number;
  private interval: number;
  private nextSlot = 0;
  private pausedUntil = 0;
  private readonly starts: number[] = [];
  private readonly rate: number;
  /** the window the pacer enforces: the server's plus the margin */
  private readonly guardedWindowMs: number;
  /** how late a shared slot may be taken: the rest of the margin is left for the way to the server */
  private readonly lateToleranceMs: number;
  private readonly slowdown: number;
  private readonly maxInterval: number;

  constructor(
    options: PacerOptions,
    private readonly clock: Clock,
    private readonly shared?: SharedPace,
  ) {
    if (!(options.rate > 0)) throw new Error("pacer rate must be positive");
    this.rate = options.rate;
    const marginMs = options.marginMs ?? Math.max(options.windowMs * 0.01, 20);
    this.guardedWindowMs = options.windowMs + marginMs;
    this.lateToleranceMs = marginMs / 2;
    this.baseInterval = this.guardedWindowMs / options.rate;
    this.interval = this.baseInterval;
    this.slowdown = options.slowdown ?? 1.25;
    this.maxInterval = this.baseInterval * (options.maxSlowdown ?? 8);
  }

  /** Waits for this request's slot; false if the signal aborted first, "blocked" when the shared pace says the key's quota is spent. */
  async acquire(signal?: AbortSignal): Promise<boolean | "blocked"> {
    for (;;) {
      if (signal?.aborted) return false;
      const now = this.clock.now();
      // Never more than `rate` starts in any window, even after a pause lets slots bunch up.
      while (this.starts.length > 0 && this.starts[0]! <= now - this.guardedWindowMs) this.starts.shift();
      const windowFreeAt = this.starts.length >= this.rate ? this.starts[0]! + this.guardedWindowMs : 0;
      const at = Math.max(this.nextSlot, this.pausedUntil, windowFreeAt);
      if (at <= now) {
        // A slot taken a little late keeps the schedule (the rate is not lost to timer delays);
        // after an idle spell the schedule restarts from now, so idling earns no burst.
        const slot = now - at < this.interval ? at : now;
        this.nextSlot = slot + this.interval;
        if (!this.shared) {
          this.starts.push(now);
          return true;
        }
        return this.sharedSlot(slot, signal);
      }
      await this.clock.sleep(at - now, signal);
    }
  }

  /**
   * This process's slot is due: the shared pace may put it later (other holders of the key took
   * slots). It is asked for at the slot's time, not the (perhaps late) wake-up's: alone on the key
   * (SQLite always) the shared schedule then keeps this one, and a slightly late timer costs no
   * rate. A slot this process reaches more than half the margin late (its event loop was busy) is
   * given up and the next one asked for: the others keep the schedule, so the holder of the slot
   * one window later would start less than a window after this late start, and the server would
   * count one request too many.
   */
  private async sharedSlot(due: number, signal?: AbortSignal): Promise<boolean | "blocked"> {
    let askAt = due;
    for (let attempt = 1; ; attempt++) {
      const slot = await this.shared!.nextSlot(this.interval, askAt);
      if (slot.blockedUntilMs !== null) return "blocked";
      let now = this.clock.now();
      if (slot.startAtMs > now) {
        await this.clock.sleep(slot.startAtMs - now, signal);
        if (signal?.aborted) return false;
        now = this.clock.now();
      }
      // a loop that stays this busy would ask for ever: the third slot is taken however late
      if (now - slot.startAtMs <= this.lateToleranceMs || attempt === MAX_SLOT_ASKS) {
        this.nextSlot = Math.max(this.nextSlot, slot.startAtMs + this.interval);
        this.starts.push(now);
        return true;
      }
      askAt = now;
    }
  }

  /** The server said 429: nobody starts before `until` (nobody using the key, with a shared pace), and the pace slows down. */
  throttled(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.interval = Math.min(this.maxInterval, this.interval * this.slowdown);
    // a failure to share the pause only costs the others a 429 of their own
    this.shared?.slowDown(until).catch(() => {});
  }

  /** Each success wins back a little of the pace lost to 429s. */
  succeeded(): void {
    if (this.interval > this.baseInterval) this.interval = Math.max(this.baseInterval, this.interval * 0.99);
  }
}
