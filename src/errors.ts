// The base of every error its user can act on (a bad flag, an unreadable input, a locked or missing
// database, a report path that clashes): the CLIs print such an error as one line, without the
// "unexpected failure" of a bug. Each area keeps its own subclass for its own catches.
export class UserError extends Error {}

/** An error of the file system (ENOSPC, EACCES, ...): its message names the file, so it is shown as it is. */
export function isFileSystemError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string" && /^E[A-Z]+$/.test((err as NodeJS.ErrnoException).code!);
}

/** An error's message on one line (SQLite and file errors included). */
export function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, " ");
}

/** Cleanup after a failure: its own error is logged, never thrown over the first one. */
export function cleanupAfter(work: () => unknown, log: (message: string) => void): void {
  try {
    work();
  } catch (err) {
    log(`cleanup after the failure also failed: ${(err as Error).message}`);
  }
}
