// Progress: a bar on a terminal; on a pipe or in cron, one log line every 10 s instead.
import cliProgress from "cli-progress";
import type { Logger } from "./logger.js";

export interface ProgressSnapshot {
  done: number;
  total: number;
  requests: number;
}

export interface Progress {
  stop(): void;
}

export function startProgress(options: {
  mode: "bar" | "log" | "off";
  total: number;
  logger: Logger;
  snapshot: () => ProgressSnapshot;
  intervalMs?: number;
  now?: () => number;
}): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const perMinute = (s: ProgressSnapshot) => {
    const minutes = (now() - started) / 60_000;
    return minutes > 0 ? Math.round(s.requests / minutes) : 0;
  };
  if (options.mode === "off" || options.total === 0) return { stop() {} };

  if (options.mode === "bar") {
    const bar = new cliProgress.SingleBar(
      {
        format: "{bar} {value}/{total} lookups | {rpm} req/min | ETA {eta_formatted}",
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 200,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(options.total, 0, { rpm: 0 });
    const timer = setInterval(() => {
      const s = options.snapshot();
      bar.update(s.done, { rpm: perMinute(s) });
    }, 250);
    return {
      stop() {
        clearInterval(timer);
        const s = options.snapshot();
        bar.update(s.done, { rpm: perMinute(s) });
        bar.stop();
      },
    };
  }

  const timer = setInterval(() => {
    const s = options.snapshot();
    const rpm = perMinute(s);
    const remaining = s.total - s.done;
    const eta = s.done > 0 ? Math.round(((now() - started) / s.done) * remaining / 1000) : null;
    options.logger.info(`progress ${s.done}/${s.total} lookups, ${rpm} req/min, ETA ${eta === null ? "?" : `${eta} s`}`, {
      event: "progress",
      done: s.done,
      total: s.total,
      requestsPerMinute: rpm,
      etaSeconds: eta,
    });
  }, options.intervalMs ?? 10_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
