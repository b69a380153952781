// Log lines for people (text) or for cron and log shippers (one JSON object per line).
// Every line passes through the redactor, so a key can never reach a log even by accident.
import { Redactor } from "./redact.js";
export type LogFormat = "text" | "json";
export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** a security warning (a key file others can read): printed even when quiet */
  security(message: string, fields?: Record<string, unknown>): void;
  /** the final summary: printed even when quiet */
  result(message: string, fields?: Record<string, unknown>): void;
  /** what the run does as it happens (its plan, why it stops): printed even when quiet, so a hung run's log says how far it got */
  milestone(level: "info" | "warn", message: string, fields?: Record<string, unknown>): void;
  /** secrets to mask in every line from now on */
  addSecret(secret: string): void;
  redact(text: string): string;
  /** whether a text holds a secret or a piece of one: a cheap test before redacting a whole answer */
  holdsSecret(text: string): boolean;
  /** a progress line takes the terminal: each log line then clears it first and redraws it after */
  setAround(around: ((write: () => void) => void) | undefined): void;
}

export interface LoggerOptions {
  format: LogFormat;
  quiet: boolean;
  verbose?: boolean;
  write?: (line: string) => void;
  now?: () => Date;
}

export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const now = options.now ?? (() => new Date());
  const redactor = new Redactor();
  const logState: { around: ((write: () => void) => void) | undefined } = { around: undefined };
  const redact = (text: string): string => redactor.redact(text);

  const emit = (level: Level | "result" | "security", message: string, fields?: Record<string, unknown>, evenQuiet = false) => {
    if (options.quiet && !evenQuiet && (level === "info" || level === "warn" || level === "debug")) return;
    if (level === "debug" && !options.verbose) return;
    // Redacted before JSON escaping, so a key cannot hide behind an escape.
    const line =
      options.format === "json"
        ? JSON.stringify({ time: now().toISOString(), level: level === "security" ? "warn" : level, message: redact(message), ...fields })
        : (level === "error" ? "error: " : level === "warn" || level === "security" ? "warning: " : "") + redact(message);
    const out = () => write(redact(line));
    if (logState.around) logState.around(out);
    else out();
  };

  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    result: (m, f) => emit("result", m, f),
    security: (m, f) => emit("security", m, f),
    milestone: (level, m, f) => emit(level, m, f, true),
    addSecret: (secret) => redactor.add(secret),
    redact,
    holdsSecret: (text) => redactor.holdsSecret(text),
    setAround(around) {
      logState.around = around;
    },
  };
}
