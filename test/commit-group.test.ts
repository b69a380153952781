import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { commitScheduler, EACH_TURN, type CommitGrouping } from "../src/store/commit-group.js";

// The scheduler's timers and clock are faked: a window passes without waiting for it.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const BUSY: CommitGrouping = { windowMs: 100, maxWrites: 10, busyWrites: 3 };

function scheduled(grouping = EACH_TURN) {
  const commits: number[] = [];
  let queue = 0;
  const s = commitScheduler(grouping, () => {
    commits.push(queue);
    queue = 0;
  });
  const write = (n = 1) => {
    for (let i = 0; i < n; i++) s.queued(++queue);
  };
  return { s, commits, write };
}

describe("commitScheduler", () => {
  it("by default commits what one turn queued, once, on the next turn, however many", () => {
    const { commits, write } = scheduled();
    write(50);
    expect(commits).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([50]);
    write();
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([50, 1]);
    vi.runAllTimers();
    expect(commits).toEqual([50, 1]);
  });

  it("commits small groups on the next turn: a paced run loses nothing it read", () => {
    const { commits, write } = scheduled(BUSY);
    for (let i = 0; i < 3; i++) {
      write(2);
      vi.advanceTimersByTime(0);
      vi.advanceTimersByTime(5);
    }
    expect(commits).toEqual([2, 2, 2]);
  });

  it("once a commit was busy, the next group waits until the window after it has passed", () => {
    const { commits, write } = scheduled(BUSY);
    write(3);
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([3]);
    vi.advanceTimersByTime(40);
    write(2);
    vi.advanceTimersByTime(59);
    expect(commits).toEqual([3]);
    vi.advanceTimersByTime(1);
    expect(commits).toEqual([3, 2]);
    // that group was small: the next is committed on the next turn again
    vi.advanceTimersByTime(10);
    write();
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([3, 2, 1]);
  });

  it("commits a full group on the next turn, without waiting out the window, and no empty one after", () => {
    const { commits, write } = scheduled(BUSY);
    write(3);
    vi.advanceTimersByTime(0);
    write(9);
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([3]);
    write();
    vi.advanceTimersByTime(0);
    expect(commits).toEqual([3, 10]);
    vi.runAllTimers();
    expect(commits).toEqual([3, 10]);
  });

  it("forgets a scheduled commit once the queue was committed by hand", () => {
    const { s, commits, write } = scheduled(BUSY);
    write(3);
    vi.advanceTimersByTime(0);
    write();
    s.committed();
    vi.runAllTimers();
    expect(commits).toEqual([3]);
  });

  it("keeps a busy commit busy when the commit itself reports it (the writers' flush does)", () => {
    const commits: number[] = [];
    let queue = 0;
    const s = commitScheduler(BUSY, () => {
      s.committed();
      commits.push(queue);
      queue = 0;
    });
    for (let i = 0; i < 3; i++) s.queued(++queue);
    vi.advanceTimersByTime(0);
    s.queued(++queue);
    vi.advanceTimersByTime(99);
    expect(commits).toEqual([3]);
    vi.advanceTimersByTime(1);
    expect(commits).toEqual([3, 1]);
  });
});
