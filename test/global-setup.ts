// Once per `vitest run`: a folder where test files note a missing tool they skipped for
// (helpers/requires-tool.ts), and at the end one line per missing tool with its install command.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import type {} from "./helpers/requires-tool.js"; // declares what is provided

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "pcc-missing-tools-"));
  project.provide("missingToolsDir", dir);
  return () => {
    const lines = readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), "utf8").trim());
    rmSync(dir, { recursive: true, force: true });
    for (const line of lines) console.log(`SKIPPED tests: ${line}`);
  };
}
