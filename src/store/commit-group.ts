// When an answer writer commits what it has queued. By default on the next turn of the event loop,
// so that a kill loses no answer the process has read. A batch fetching as fast as an unlimited
// server answers reads several answers a turn, and commits that small re-write the same pages over
// and over: at 10,000 postcodes they cost more CPU than fetching (docs/bench.md). So when a commit
// held `busyWrites` or more (answers come faster than turns), the next group waits until `windowMs`
// after it (or until `maxWrites` have queued). A paced run (the real API allows 100 requests a
// minute) never gets there: each of its answers is committed on the next turn.

export interface CommitGrouping {
  /** the least time between two commits once they are busy */
  windowMs: number;
  /** a group this large is committed on the next turn, whatever the window */
  maxWrites: number;
  /** a commit of this many writes or more makes the next group wait for the window */
  busyWrites: number;
}

/** A commit per event-loop turn: the writers' default. */
export const EACH_TURN: CommitGrouping = { windowMs: 0, maxWrites: 1, busyWrites: Infinity };

export interface CommitScheduler {
  /** The queue now holds `count` writes: schedules its commit if none is. */
  queued(count: number): void;
  /** The queue was committed by hand (flush): forgets the scheduled commit. */
  committed(): void;
}

/** Schedules `commit` as the grouping says; `commit` runs at most once per schedule. */
export function commitScheduler(grouping: CommitGrouping, commit: () => void): CommitScheduler {
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let lastCommit = -Infinity;
  let busy = false;
  let pending = 0;
  const committed = () => {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = null;
    immediate = null;
    // a second call for the same commit (fire, then the writer's own flush) changes nothing
    if (pending === 0) return;
    lastCommit = performance.now();
    busy = pending >= grouping.busyWrites;
    pending = 0;
  };
  const fire = () => {
    committed();
    commit();
  };
  return {
    queued(count) {
      pending = count;
      if (immediate) return;
      const wait = busy ? lastCommit + grouping.windowMs - performance.now() : 0;
      if (wait <= 0 || count >= grouping.maxWrites) {
        if (timer) clearTimeout(timer);
        timer = null;
        immediate = setImmediate(fire);
      } else if (!timer) timer = setTimeout(fire, wait);
    },
    committed,
  };
}

/**
 * A writer's queue, the same on every engine: records and other writes in the order they came,
 * taken off as one group per commit, and the failure of a commit, after which nothing more is
 * queued (every later write throws it) and nothing more is committed.
 */
export interface WriteQueue<T> {
  /** Queues an item and schedules its group's commit; throws an earlier commit's failure. */
  push(item: T): void;
  /** The group to commit now, taken off the queue (the scheduled commit is forgotten); null when empty or failed. */
  take(): T[] | null;
  /** Records a commit's failure; returns it. */
  fail(err: Error): Error;
  readonly failure: Error | null;
}

/** A queue whose groups `commit` takes (with take()) when the grouping says. */
export function writeQueue<T>(grouping: CommitGrouping | undefined, commit: () => void): WriteQueue<T> {
  let queued: T[] = [];
  let failure: Error | null = null;
  const scheduler = commitScheduler(grouping ?? EACH_TURN, commit);
  return {
    push(item) {
      if (failure) throw failure;
      queued.push(item);
      scheduler.queued(queued.length);
    },
    take() {
      scheduler.committed();
      if (failure || queued.length === 0) return null;
      const group = queued;
      queued = [];
      return group;
    },
    fail: (err) => (failure = err),
    get failure() {
      return failure;
    },
  };
}
