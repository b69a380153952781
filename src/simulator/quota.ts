// Call-volume quota per (key, lookup): `quota` requests per period (a month by default), counted from
// the simulator's start. Requests past it get 403 until the period rolls over.

export const DEFAULT_QUOTA_PERIOD_MS = 30 * 24 * 3600 * 1000;

export type QuotaResult = { ok: true } | { ok: false; replenishInMs: number };

export class QuotaMeter {
  private readonly used = new Map<string, { period: number; count: number }>();

  constructor(
    readonly quota: number,
    readonly periodMs: number,
    readonly startedAt: number,
  ) {
    if (!Number.isInteger(quota) || quota < 0) throw new RangeError(`quota must be a whole number >= 0, got ${quota}`);
    if (!(periodMs > 0)) throw new RangeError(`quota period must be > 0 ms, got ${periodMs}`);
  }

  tryUse(id: string, now: number): QuotaResult {
    const period = Math.floor((now - this.startedAt) / this.periodMs);
    let entry = this.used.get(id);
    if (!entry || entry.period !== period) this.used.set(id, (entry = { period, count: 0 }));
    if (entry.count >= this.quota) return { ok: false, replenishInMs: this.startedAt + (period + 1) * this.periodMs - now };
    entry.count++;
    return { ok: true };
  }

  clear(): void {
    this.used.clear();
  }
}
