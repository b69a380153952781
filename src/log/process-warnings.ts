// Node prints a library's warnings (a DeprecationWarning, a MaxListeners warning) straight to
// stderr, where they break a JSON log and escape the redactor. Routed through the logger instead,
// they are one more line of the log's own form.
import type { Logger } from "./logger.js";

/** From now on, every process warning is a warn line of `logger` (Node's own printing is removed). */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error & { code?: string }) => {
    logger.warn(`${warning.name}${warning.code ? ` ${warning.code}` : ""}: ${warning.message}`, { event: "process_warning" });
  });
}
