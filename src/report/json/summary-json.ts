// summary.json: the summary's figures as JSON, written in chunks (json-pieces.ts), so that the
// estimates of many groups never make one string of the whole file.
import { writeAtomically } from "../set/atomic-file.js";
import type { Summary } from "../summary/summary.js";
import { prettyJsonChunks } from "./json-pieces.js";

export function writeSummaryJson(summary: Summary, path: string): Promise<void> {
  return writeAtomically(path, summaryJsonText(summary));
}

function* summaryJsonText(summary: Summary): Generator<string> {
  yield* prettyJsonChunks(summary);
  yield "\n";
}
