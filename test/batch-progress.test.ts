import { describe, expect, it } from "vitest";
import { progressMode } from "../src/pipeline/batch.js";
import { progressLine, startProgress, type Every } from "../src/log/progress.js";
import { createLogger } from "../src/log/logger.js";

/** Timers ticked by hand: no test waits in real time. */
function manualTimers(): { every: Every; tick(): void; cancelled: () => boolean } {
  let fn: (() => void) | null = null;
  let cancelled = false;
  return {
    every: (_ms, tick) => {
      fn = tick;
      return () => {
        cancelled = true;
        fn = null;
      };
    },
    tick: () => fn?.(),
    cancelled: () => cancelled,
  };
}

describe("progress", () => {
  it("is a line on a terminal, log lines elsewhere, nothing with --no-progress or --quiet", () => {
    expect(progressMode({ progress: undefined, quiet: false }, true)).toBe("bar");
    expect(progressMode({ progress: undefined, quiet: false }, false)).toBe("log");
    expect(progressMode({ progress: true, quiet: false }, false)).toBe("log");
    expect(progressMode({ progress: false, quiet: false }, true)).toBe("off");
    expect(progressMode({ progress: true, quiet: true }, true)).toBe("off");
  });

  it("off a terminal, logs done/total, each lookup's rate against its own --rate, and ETA once per interval", () => {
    const lines: string[] = [];
    const logger = createLogger({ format: "json", quiet: false, write: (l) => lines.push(l) });
    const timers = manualTimers();
    let t = 0;
    let done = 0;
    let requests = 0;
    const progress = startProgress({
      mode: "log",
      total: 40,
      logger,
      every: timers.every,
      now: () => t,
      snapshot: () => ({
        done,
        total: 40,
        lookups: [
          { lookup: "broadband", requests, rate: 600 },
          { lookup: "mobile", requests: requests / 2, rate: 600 },
        ],
      }),
    });
    t = 30_000;
    done = 10;
    requests = 300;
    timers.tick();
    progress.stop();
    expect(timers.cancelled()).toBe(true);
    expect(lines).toHaveLength(1);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    // 300 requests in 30 s is 600 a minute for broadband alone, not the sum of both lookups
    expect(first).toMatchObject({ level: "info", event: "progress", done: 10, total: 40, etaSeconds: 90 });
    expect(first.requestsPerMinute).toEqual({ broadband: 600, mobile: 300 });
    expect(first.message).toBe("progress 10/40 lookups, broadband 600/600 req/min, mobile 300/600 req/min, ETA 90 s");
  });

  it("on a terminal, log lines print above the progress line, never inside it", () => {
    let screen = "";
    const term = { write: (s: string) => (screen += s), columns: 80 };
    const logger = createLogger({ format: "text", quiet: false, write: (l) => term.write(l + "\n") });
    const timers = manualTimers();
    const progress = startProgress({
      mode: "bar",
      total: 4,
      logger,
      every: timers.every,
      now: () => 0,
      terminal: term,
      snapshot: () => ({ done: 1, total: 4, lookups: [{ lookup: "broadband", requests: 1, rate: 100 }] }),
    });
    logger.warn("something happened");
    progress.stop();
    // the line is cleared before the log line, and drawn again after it
    expect(screen).toContain("\r\x1b[2Kwarning: something happened\n\r\x1b[2K1/4 lookups 25%");
    logger.info("after");
    expect(screen.endsWith("\nafter\n")).toBe(true);
  });

  it("fits 80 columns and keeps the ETA", () => {
    const s = {
      done: 123_456,
      total: 250_000,
      lookups: [
        { lookup: "broadband", requests: 0, rate: 100_000 },
        { lookup: "mobile", requests: 0, rate: 100_000 },
      ],
    };
    const line = progressLine(s, [99_999, 99_998], 123_456, 80);
    expect(line.length).toBeLessThan(80);
    expect(line).toMatch(/ETA 34 h 18 min$/);
    expect(progressLine(s, [99_999, 99_998], 123_456, 40)).toBe("123456/250000 | ETA 34 h 18 min");
  });
});
