// An output folder that cannot be written as asked (its lock held by another writer, a file system
// refusing): the reports and the export both say it, and the CLI exits 1 with it.
import { UserError } from "../errors.js";

export class OutputError extends UserError {}

/** An error's cause in plain words (a code's meaning, else its message). */
export function causeOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOSPC: "no space left on the device",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only file system",
    ENOTDIR: "not a directory",
    EEXIST: "a file is in the way",
    EDQUOT: "disk quota exceeded",
  };
  return (e.code && known[e.code]) ?? e.message ?? String(err);
}
