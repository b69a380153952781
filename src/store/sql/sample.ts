// The sample order's seed and strata (src/plan/sample-order.ts), the same SQL on every engine: the
// seed is chosen by the first batch on a database and kept, so every night takes the same order
// and a run resumes where the last one stopped; the strata are the run's input cells of the
// --group-by columns, per postcode.
import type { SqlSession } from "./session.js";

export interface SampleStore {
  /** The database's seed: the stored one, or `candidate`, stored now, when none is (the first caller's wins). */
  seed(candidate: string): Promise<string>;
  /** Per postcode of the run's input, the cells at `indexes` of its first row (empty text where the row has none). */
  inputCells(runId: number, indexes: readonly number[]): Promise<Map<string, string[]>>;
}

export function sqlSampleStore(q: SqlSession): SampleStore {
  return {
    async seed(candidate) {
      await q.exec("INSERT INTO sample_seed (id, seed) VALUES (1, @candidate) ON CONFLICT (id) DO NOTHING", { candidate });
      return (await q.get<{ seed: string }>("SELECT seed FROM sample_seed WHERE id = 1"))!.seed;
    },
    async inputCells(runId, indexes) {
      const out = new Map<string, string[]>();
      if (indexes.length === 0) return out;
      for await (const batch of q.stream("SELECT postcode, cells FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL ORDER BY line", { runId }))
        for (const [postcode, cells] of batch) {
          if (out.has(String(postcode))) continue;
          const parsed = JSON.parse(String(cells)) as (string | null)[];
          out.set(String(postcode), indexes.map((i) => (parsed[i] ?? "").trim()));
        }
      return out;
    },
  };
}
