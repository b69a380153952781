// Where a sheet's rows come from: a sync iterable of rows (a SQLite iterator), an async iterable of
// rows, or an async iterable of batches (arrays of rows), taken one batch at a time. A row is an
// array of cell values, never arrays themselves: an element whose first item is an array is a batch,
// and an empty array an empty batch.

export type Row = readonly unknown[];
export type RowSource = Iterable<Row> | AsyncIterable<Row> | AsyncIterable<readonly Row[]>;

/** Rows of a sync source taken at a time: few enough to stay small, many enough that waits are rare. */
const SYNC_BATCH = 512;

const isBatch = (item: Row | readonly Row[]): item is readonly Row[] => Array.isArray(item[0]);

/**
 * The source's rows in batches. Stopping early (a failure) returns the source's iterator, which
 * closes it (a SQLite statement left open keeps its connection busy).
 */
export async function* batches(source: RowSource): AsyncGenerator<readonly Row[]> {
  if (Symbol.asyncIterator in source) {
    for await (const item of source as AsyncIterable<Row | readonly Row[]>) {
      if (item.length === 0) continue;
      yield isBatch(item) ? item : [item as Row];
    }
    return;
  }
  let batch: Row[] = [];
  for (const row of source) {
    batch.push(row);
    if (batch.length === SYNC_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
