// Progress: on a terminal, one status line at the bottom that log lines print above (never inside);
// on a pipe or in cron, one log line every 10 s instead. Each lookup's rate is shown against its own --rate.
import type { Logger } from "./logger.js";

export interface LookupProgress {
  lookup: string;
  /** requests sent so far */
  requests: number;
  /** its --rate, requests per minute */
  rate: number;
}

export interface ProgressSnapshot {
  done: number;
  total: number;
  lookups: LookupProgress[];
}

export interface Progress {
  stop(): void;
}

/** Calls `tick` every `ms`; returns the cancel. Tests pass their own to tick by hand. */
export type Every = (ms: number, tick: () => void) => () => void;

const realEvery: Every = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** Requests per minute per lookup over the last minute (or since the start, if shorter). */
export class RateMeter {
  private readonly samples: { at: number; requests: number[] }[] = [];
  constructor(private readonly windowMs = 60_000) {}

  sample(at: number, s: ProgressSnapshot): number[] {
    this.samples.push({ at, requests: s.lookups.map((l) => l.requests) });
    while (this.samples.length > 2 && this.samples[1]!.at <= at - this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    const minutes = (at - first.at) / 60_000;
    return s.lookups.map((l, i) => (minutes > 0 ? Math.round((l.requests - first.requests[i]!) / minutes) : 0));
  }
}

/** The status line: done/total, each lookup's rate against its --rate, ETA; cut to `columns`. */
export function progressLine(s: ProgressSnapshot, rates: number[], etaSeconds: number | null, columns = 80): string {
  const pct = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 100;
  const parts = [
    `${s.done}/${s.total} lookups ${pct}%`,
    s.lookups.map((l, i) => `${l.lookup} ${rates[i]}/${l.rate} req/min`).join(", "),
    `ETA ${formatEta(etaSeconds)}`,
  ];
  const line = parts.join(" | ");
  // ETA is the part people look for: keep it when cutting.
  if (line.length < columns) return line;
  const short = [parts[0], s.lookups.map((l, i) => `${l.lookup.slice(0, 2)} ${rates[i]}/${l.rate}`).join(" "), parts[2]].join(" | ");
  if (short.length < columns) return short;
  const shortest = `${s.done}/${s.total} | ETA ${formatEta(etaSeconds)}`;
  return shortest.length < columns ? shortest : shortest.slice(0, Math.max(0, columns - 1));
}

export function formatEta(seconds: number | null): string {
  if (seconds === null) return "?";
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** Seconds left at the pace so far; null before the first is done. */
export function etaSeconds(elapsedMs: number, done: number, total: number): number | null {
  return done > 0 ? Math.round(((elapsedMs / done) * (total - done)) / 1000) : null;
}

function eta(started: number, now: number, s: ProgressSnapshot): number | null {
  return etaSeconds(now - started, s.done, s.total);
}

export function startProgress(options: {
  mode: "bar" | "log" | "off";
  total: number;
  logger: Logger;
  snapshot: () => ProgressSnapshot;
  intervalMs?: number;
  now?: () => number;
  every?: Every;
  /** the terminal, for the line mode */
  terminal?: { write(text: string): unknown; columns?: number | undefined };
}): Progress {
  const now = options.now ?? Date.now;
  const every = options.every ?? realEvery;
  const started = now();
  if (options.mode === "off" || options.total === 0) return { stop() {} };
  const meter = new RateMeter();
  meter.sample(started, options.snapshot());

  if (options.mode === "bar") {
    const term = options.terminal ?? process.stderr;
    let line = "";
    const draw = () => term.write(`\r\x1b[2K${line}`);
    const clear = () => term.write("\r\x1b[2K");
    const refresh = () => {
      const s = options.snapshot();
      line = progressLine(s, meter.sample(now(), s), eta(started, now(), s), term.columns ?? 80);
      draw();
    };
    // Each log line clears the status line, prints, and the status line is drawn again below it.
    options.logger.setAround((write) => {
      clear();
      write();
      draw();
    });
    refresh();
    const cancel = every(options.intervalMs ?? 250, refresh);
    return {
      stop() {
        cancel();
        options.logger.setAround(undefined);
        refresh();
        term.write("\n");
      },
    };
  }

  const cancel = every(options.intervalMs ?? 10_000, () => {
    const s = options.snapshot();
    const rates = meter.sample(now(), s);
    const etaSeconds = eta(started, now(), s);
    options.logger.info(
      `progress ${s.done}/${s.total} lookups, ${s.lookups.map((l, i) => `${l.lookup} ${rates[i]}/${l.rate} req/min`).join(", ")}, ETA ${formatEta(etaSeconds)}`,
      {
        event: "progress",
        done: s.done,
        total: s.total,
        requestsPerMinute: Object.fromEntries(s.lookups.map((l, i) => [l.lookup, rates[i]])),
        etaSeconds,
      },
    );
  });
  return { stop: cancel };
}
