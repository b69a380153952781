// Rows as the writers take them: a few rows in memory (an Iterable), or a snapshot's row stream
// (batches of rows, one await a batch). Writers loop over batches either way.
import { batchesOf, type RowBatches } from "../../store/snapshot.js";

export type Rows<R> = Iterable<R> | RowBatches<R>;

/** The rows in batches: a stream as it comes, an in-memory list cut into batches. */
export async function* inBatches<R>(rows: Rows<R>): AsyncGenerator<readonly R[]> {
  yield* Symbol.asyncIterator in rows ? rows : batchesOf(rows);
}

/** Each row of a stream turned into another, batch by batch. */
export async function* mapRows<A, B>(rows: Rows<A>, f: (row: A) => B): AsyncGenerator<readonly B[]> {
  for await (const batch of inBatches(rows)) yield batch.map(f);
}
