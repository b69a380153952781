// A logger that remembers the end of the run: its last lines (as written, so redacted) for a cron
// monitor's ping, and the last stopReason and counts the batch logged, for the metrics file.
import type { Logger } from "./logger.js";

export interface WatchedLogger extends Logger {
  /** the last lines logged, oldest first, each already redacted */
  lastLines(): string[];
  /** the fields of the last line that carried a stopReason (the run's summary or its refusal) */
  lastOutcome(): Record<string, unknown> | null;
}

/**
 * Wraps `inner`; `keep` lines at most. `lines` receives every line as the inner logger wrote it
 * (the CLI's write hook), so what a monitor sees is what the log holds.
 */
export function watchedLogger(inner: Logger, tail: { lines: string[]; keep: number }): WatchedLogger {
  let outcome: Record<string, unknown> | null = null;
  const note = (fields?: Record<string, unknown>) => {
    if (fields && "stopReason" in fields) outcome = fields;
  };
  const wrap =
    (call: (m: string, f?: Record<string, unknown>) => void) =>
    (m: string, f?: Record<string, unknown>): void => {
      note(f);
      call(m, f);
    };
  return {
    ...inner,
    debug: wrap(inner.debug),
    info: wrap(inner.info),
    warn: wrap(inner.warn),
    error: wrap(inner.error),
    security: wrap(inner.security),
    result: wrap(inner.result),
    milestone: (level, m, f) => {
      note(f);
      inner.milestone(level, m, f);
    },
    lastLines: () => tail.lines.slice(-tail.keep),
    lastOutcome: () => outcome,
  };
}

/** A write hook that keeps the last `keep` lines and passes every line on. */
export function tailKeeping(keep: number, write: (line: string) => void): { lines: string[]; keep: number; write: (line: string) => void } {
  const lines: string[] = [];
  return {
    lines,
    keep,
    write: (line) => {
      lines.push(line);
      if (lines.length > keep * 2) lines.splice(0, lines.length - keep);
      write(line);
    },
  };
}
