import { describe, expect, it } from "vitest";
import { progressMode } from "../src/pipeline/batch.js";
import { startProgress } from "../src/log/progress.js";
import { createLogger } from "../src/log/logger.js";

describe("progress", () => {
  it("is a bar on a terminal, log lines elsewhere, nothing with --no-progress or --quiet", () => {
    expect(progressMode({ progress: undefined, quiet: false }, true)).toBe("bar");
    expect(progressMode({ progress: undefined, quiet: false }, false)).toBe("log");
    expect(progressMode({ progress: true, quiet: false }, false)).toBe("log");
    expect(progressMode({ progress: false, quiet: false }, true)).toBe("off");
    expect(progressMode({ progress: true, quiet: true }, true)).toBe("off");
  });

  it("off a terminal, logs done/total, requests per minute and ETA once per interval", async () => {
    const lines: string[] = [];
    const logger = createLogger({ format: "json", quiet: false, write: (l) => lines.push(l) });
    let t = 0;
    let done = 0;
    const progress = startProgress({
      mode: "log",
      total: 40,
      logger,
      intervalMs: 15,
      now: () => t,
      snapshot: () => ({ done, total: 40, requests: done }),
    });
    t = 30_000;
    done = 10;
    await new Promise((r) => setTimeout(r, 40));
    progress.stop();
    const count = lines.length;
    await new Promise((r) => setTimeout(r, 40));
    expect(lines.length).toBe(count); // stop() stops it
    expect(count).toBeGreaterThanOrEqual(1);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    // 10 of 40 in 30 s: 20 requests a minute, 90 s to go
    expect(first).toMatchObject({ level: "info", event: "progress", done: 10, total: 40, requestsPerMinute: 20, etaSeconds: 90 });
    expect(first.message).toBe("progress 10/40 lookups, 20 req/min, ETA 90 s");
  });
});
