// Client-side pacing: request starts are spaced evenly so a lookup never exceeds its rate,
// and a server enforcing the same per-window limit never needs to send 429. With a shared pace
// (team mode: the store's pace per lookup and key), each start also takes the next slot of the
// schedule every machine on the key draws from, so N machines together keep one --rate.
import type { Clock } from "./clock.js";

/** The store's pace for one lookup and key (Store.pace, bound): see src/store/store.ts. */
export interface SharedPace {
  nextSlot(intervalMs: number, nowMs: number): Promise<{ startAtMs: number; blockedUntilMs: number | null }>;
  slowDown(untilMs: number): Promise<void>;
  block(untilMs: number): Promise<void>;
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

export class Pacer {
  private readonly baseInterval: number;
  private interval: number;
  private nextSlot = 0;
  private pausedUntil = 0;
  private readonly starts: number[] = [];
  private readonly rate: number;
  /** the window the pacer enforces: the server's plus the margin */
  private readonly guardedWindowMs: number;
  private readonly slowdown: number;
  private readonly maxInterval: number;
  /** a quota block the shared pace reported (epoch ms): nothing may be sent before it */
  blockedUntil: number | null = null;

  constructor(
    options: PacerOptions,
    private readonly clock: Clock,
    private readonly shared?: SharedPace,
  ) {
    if (!(options.rate > 0)) throw new Error("pacer rate must be positive");
    this.rate = options.rate;
    this.guardedWindowMs = options.windowMs + (options.marginMs ?? Math.max(options.windowMs * 0.01, 20));
    this.baseInterval = this.guardedWindowMs / options.rate;
    this.interval = this.baseInterval;
    this.slowdown = options.slowdown ?? 1.25;
    this.maxInterval = this.baseInterval * (options.maxSlowdown ?? 8);
  }

  /**
   * Waits for this request's slot; returns false if the signal aborted first, or if the shared
   * pace says the key is blocked (then `blockedUntil` says until when).
   */
  async acquire(signal?: AbortSignal): Promise<boolean> {
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
        if (this.shared) return this.sharedSlot(slot, signal);
        this.starts.push(now);
        return true;
      }
      await this.clock.sleep(at - now, signal);
    }
  }

  /**
   * The shared schedule's next slot at or after this one (asked for at the local schedule's time,
   * so that alone on a key the shared pace keeps it): waited for, as the slot is ours either way.
   */
  private async sharedSlot(slot: number, signal?: AbortSignal): Promise<boolean> {
    const taken = await this.shared!.nextSlot(this.interval, slot);
    if (taken.blockedUntilMs !== null) {
      this.blockedUntil = taken.blockedUntilMs;
      return false;
    }
    const wait = taken.startAtMs - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait, signal);
    if (signal?.aborted) return false;
    this.starts.push(this.clock.now());
    return true;
  }

  /** The server said 429: nobody starts before `until` (nobody on the key, with a shared pace), and the pace slows down. */
  async throttled(until: number): Promise<void> {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.interval = Math.min(this.maxInterval, this.interval * this.slowdown);
    await this.shared?.slowDown(until);
  }

  /** The service said the key's quota is spent until `until`: with a shared pace, every machine on the key stops sending. */
  async block(until: number): Promise<void> {
    this.blockedUntil = Math.max(this.blockedUntil ?? 0, until);
    await this.shared?.block(until);
  }

  /** Each success wins back a little of the pace lost to 429s. */
  succeeded(): void {
    if (this.interval > this.baseInterval) this.interval = Math.max(this.baseInterval, this.interval * 0.99);
  }
}
