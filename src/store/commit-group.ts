// When an answer writer commits what it has queued. By default on the next turn of the event loop,
// so that a kill loses only the answers of that turn. A batch fetching at full speed gets a few
// answers a turn, and a commit that small re-writes the same pages over and over: at 10,000
// postcodes the commits alone cost more CPU than fetching (docs/bench.md). So the batch asks for a
// window instead: a group is committed once its first write has waited `windowMs`, or at once
// when it holds `maxWrites`. Against the real API (100 requests a minute) a window of a tenth of a
// second still commits every answer on its own.

export interface CommitGrouping {
  /** how long the first queued write may wait for others; 0: commit on the next turn */
  windowMs: number;
  /** a group this large is committed on the next turn, whatever its age */
  maxWrites: number;
}

/** A commit per event-loop turn: the writers' default. */
export const EACH_TURN: CommitGrouping = { windowMs: 0, maxWrites: 1 };

export interface CommitScheduler {
  /** The queue now holds `count` writes: schedules its commit if none is. */
  queued(count: number): void;
  /** The queue was committed by hand (flush): forgets the scheduled commit. */
  cancel(): void;
}

/** Schedules `commit` as the grouping says; `commit` runs at most once per schedule. */
export function commitScheduler(grouping: CommitGrouping, commit: () => void): CommitScheduler {
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = null;
    immediate = null;
  };
  const fire = () => {
    cancel();
    commit();
  };
  return {
    queued(count) {
      if (immediate) return;
      if (grouping.windowMs <= 0 || count >= grouping.maxWrites) {
        if (timer) clearTimeout(timer);
        timer = null;
        immediate = setImmediate(fire);
      } else if (!timer) timer = setTimeout(fire, grouping.windowMs);
    },
    cancel,
  };
}
