// Exponential backoff with full jitter: delay = random(0, min(cap, base * 2^retry)).
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 30_000 };

/** retry is 0 for the first retry; random() in [0, 1). */
export function backoffDelay(retry: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}
