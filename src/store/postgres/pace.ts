// One pace per lookup and key, shared by every machine using the key: each slot is one atomic
// upsert of the key's row (the next start, a 429's pause, a quota block), so N machines together
// start no more than one request per interval. Mirrors the in-process pace (memory-pace.ts).
import type pg from "pg";
import type { PaceSlot, PaceStore } from "../store.js";
import { rowOf } from "./connect.js";

export function postgresPace(pool: pg.Pool): PaceStore {
  return {
    async nextSlot(lookup, keyId, intervalMs, nowMs): Promise<PaceSlot> {
      // blocked: the slot is the block's end and the schedule stays; otherwise after an idle spell
      // the schedule restarts from now (idling earns no burst)
      const row = (await rowOf<{ next_ms: number; blocked_until_ms: number }>(
        pool,
        `INSERT INTO pace AS p (lookup, key_id, next_ms) VALUES ($1, $2, $3::float8 + $4::float8)
         ON CONFLICT (lookup, key_id) DO UPDATE SET next_ms =
           CASE WHEN p.blocked_until_ms > $3::float8 THEN p.next_ms ELSE GREATEST($3::float8, p.next_ms, p.paused_until_ms) + $4::float8 END
         RETURNING next_ms, blocked_until_ms`,
        [lookup, keyId, nowMs, intervalMs],
      ))!;
      if (row.blocked_until_ms > nowMs) return { startAtMs: row.blocked_until_ms, blockedUntilMs: row.blocked_until_ms };
      return { startAtMs: row.next_ms - intervalMs, blockedUntilMs: null };
    },
    async slowDown(lookup, keyId, untilMs) {
      await pool.query(
        `INSERT INTO pace AS p (lookup, key_id, next_ms, paused_until_ms) VALUES ($1, $2, 0, $3)
         ON CONFLICT (lookup, key_id) DO UPDATE SET paused_until_ms = GREATEST(p.paused_until_ms, $3::float8)`,
        [lookup, keyId, untilMs],
      );
    },
    async block(lookup, keyId, untilMs) {
      await pool.query(
        `INSERT INTO pace AS p (lookup, key_id, next_ms, blocked_until_ms) VALUES ($1, $2, 0, $3)
         ON CONFLICT (lookup, key_id) DO UPDATE SET blocked_until_ms = GREATEST(p.blocked_until_ms, $3::float8)`,
        [lookup, keyId, untilMs],
      );
    },
  };
}
