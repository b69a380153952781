// Rows of a synchronous SQLite iteration handed out as an async stream of batches: the consumer
// awaits once per SNAPSHOT_BATCH_ROWS rows, not per row. Breaking off the stream closes the
// statement (the generator's return reaches the iterator).
import { SNAPSHOT_BATCH_ROWS } from "../../snapshot.js";

export async function* batchesOf<R>(rows: Iterable<R>, size = SNAPSHOT_BATCH_ROWS): AsyncGenerator<R[]> {
  let batch: R[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
