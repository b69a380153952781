// Log lines for people (text) or for cron and log shippers (one JSON object per line).
// Every line passes through redaction, so a key can never reach a log even by accident.
export type LogFormat = "text" | "json";
export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** the final summary: printed even when quiet */
  result(message: string, fields?: Record<string, unknown>): void;
  /** secrets to mask in every line from now on */
  addSecret(secret: string): void;
  redact(text: string): string;
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
  const secrets: string[] = [];

  const redact = (text: string): string => {
    let out = text;
    for (const s of secrets) out = out.split(s).join("***");
    return out;
  };

  const emit = (level: Level | "result", message: string, fields?: Record<string, unknown>) => {
    if (options.quiet && (level === "info" || level === "warn" || level === "debug")) return;
    if (level === "debug" && !options.verbose) return;
    if (options.format === "json") {
      write(redact(JSON.stringify({ time: now().toISOString(), level, message, ...fields })));
    } else {
      const prefix = level === "error" ? "error: " : level === "warn" ? "warning: " : "";
      write(redact(prefix + message));
    }
  };

  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    result: (m, f) => emit("result", m, f),
    addSecret(secret) {
      if (secret.length > 0 && !secrets.includes(secret)) secrets.push(secret);
    },
    redact,
  };
}
