// Writing a file so that nobody ever opens half of it: the content goes to a hidden temporary file
// beside the target, is flushed to disk, and only then renamed over the target (rename within one
// directory is atomic). Any failure, including the source throwing, removes the temporary file and
// leaves the previous version of the target untouched.
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

type Source = Iterable<unknown> | AsyncIterable<unknown> | Readable;
type Stage = NodeJS.ReadWriteStream;

/** The temporary file a write of `target` uses; its name starts with a dot and ends in .tmp. */
export function temporaryPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
}

/** Streams `source` (through optional transforms) into `target`, atomically. */
export async function writeAtomically(target: string, source: Source, ...stages: Stage[]): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temporary = temporaryPathFor(target);
  try {
    const readable = source instanceof Readable ? source : Readable.from(source as Iterable<unknown> | AsyncIterable<unknown>);
    await pipeline([readable, ...stages, createWriteStream(temporary, { flush: true })]);
    await rename(temporary, target);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}
