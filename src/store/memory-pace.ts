// A pace kept in the process: honest wherever one process at a time uses the key on this store
// (SQLite runs one batch per database). An engine shared by several machines keeps it in the
// database instead.
import type { Lookup } from "../contract/fields.js";
import type { PaceSlot, PaceStore } from "./store.js";

interface PaceState {
  next: number;
  pausedUntil: number;
  blockedUntil: number;
}

export function memoryPace(): PaceStore {
  const states = new Map<string, PaceState>();
  const state = (lookup: Lookup, keyId: string) => {
    const k = `${lookup}\u0000${keyId}`;
    let s = states.get(k);
    if (!s) states.set(k, (s = { next: 0, pausedUntil: 0, blockedUntil: 0 }));
    return s;
  };
  return {
    async nextSlot(lookup, keyId, intervalMs, nowMs): Promise<PaceSlot> {
      const s = state(lookup, keyId);
      if (s.blockedUntil > nowMs) return { startAtMs: s.blockedUntil, blockedUntilMs: s.blockedUntil };
      const at = Math.max(s.next, s.pausedUntil);
      if (at > nowMs) {
        s.next = at + intervalMs;
        return { startAtMs: at, blockedUntilMs: null };
      }
      // as the pacer does: a slot taken a little late keeps the schedule; after an idle spell it
      // restarts from now, so idling earns no burst
      s.next = (nowMs - at < intervalMs ? at : nowMs) + intervalMs;
      return { startAtMs: nowMs, blockedUntilMs: null };
    },
    async slowDown(lookup, keyId, untilMs) {
      const s = state(lookup, keyId);
      s.pausedUntil = Math.max(s.pausedUntil, untilMs);
    },
    async block(lookup, keyId, untilMs) {
      const s = state(lookup, keyId);
      s.blockedUntil = Math.max(s.blockedUntil, untilMs);
    },
  };
}
