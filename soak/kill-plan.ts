// When to SIGKILL the batch. A moment is a count of requests the simulator has received (across all
// runs), plus a few random milliseconds so the kill lands at any point of a request's life: seeded,
// so `--seed N` replays the same plan.
import type { Rng } from "../src/simulator/hash.js";

export interface KillPoint {
  /** kill once the simulator has received this many requests in total */
  afterRequests: number;
  /** then wait this long before the SIGKILL */
  delayMs: number;
}

/**
 * `kills` moments spread over 5%..85% of `minRequests`, one drawn in each equal slice of that range
 * so no two fall together. The batch cannot finish before the simulator has received minRequests
 * (one per postcode and lookup), so every moment is reached.
 */
export function planKills(rng: Rng, kills: number, minRequests: number, maxDelayMs = 50): KillPoint[] {
  if (!Number.isInteger(kills) || kills < 0) throw new RangeError(`kills must be a whole number >= 0, got ${kills}`);
  const lo = 0.05 * minRequests;
  const slice = (0.8 * minRequests) / Math.max(1, kills);
  const points: KillPoint[] = [];
  for (let i = 0; i < kills; i++) {
    const from = lo + i * slice + 0.1 * slice;
    const afterRequests = Math.max(1, Math.round(from + rng.next() * 0.8 * slice));
    points.push({ afterRequests, delayMs: rng.int(0, maxDelayMs) });
  }
  return points;
}
