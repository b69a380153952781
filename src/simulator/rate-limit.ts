// Sliding-window rate limit per (key, lookup), like the gateway's: at most `limit` admitted requests
// in any `windowMs`. Rejected requests do not count toward the window.

export type Admission = { ok: true } | { ok: false; waitMs: number };

export class SlidingWindowLimiter {
  // The last `limit` admitted times per id, as a ring: the oldest decides whether one more fits.
  private readonly rings = new Map<string, { times: number[]; head: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`rate limit must be a whole number >= 1, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`rate window must be > 0 ms, got ${windowMs}`);
  }

  tryAcquire(id: string, now: number): Admission {
    let ring = this.rings.get(id);
    if (!ring) this.rings.set(id, (ring = { times: [], head: 0 }));
    if (ring.times.length < this.limit) {
      ring.times.push(now);
      return { ok: true };
    }
    const oldest = ring.times[ring.head]!;
    // A time t is inside the window while t > now - windowMs.
    if (oldest > now - this.windowMs) return { ok: false, waitMs: oldest + this.windowMs - now };
    ring.times[ring.head] = now;
    ring.head = (ring.head + 1) % this.limit;
    return { ok: true };
  }

  clear(): void {
    this.rings.clear();
  }
}

/** Remembers the Retry-After each (key, lookup) was given, to count requests that came back too early. */
export class RetryAfterTracker {
  private readonly until = new Map<string, number>();

  given(id: string, now: number, retryAfterSeconds: number): void {
    this.until.set(id, Math.max(this.until.get(id) ?? 0, now + retryAfterSeconds * 1000));
  }

  /** True when this request arrived before a Retry-After given to the same id had elapsed. */
  isEarly(id: string, now: number): boolean {
    const until = this.until.get(id);
    if (until === undefined) return false;
    if (now < until) return true;
    this.until.delete(id);
    return false;
  }
}
