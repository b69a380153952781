// Every comment stays true about where things are: a path a comment names (src/…, docs/…, a file's
// name such as lookups.ts or README.md, relative to the repository, src or the file's own folders)
// exists in the repository, and no comment sends a reader to a document outside it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { comments, pathTokens, stalePaths } from "./helpers/comment-paths.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the paths comments name", () => {
  it("all exist in the repository", () => {
    expect(stalePaths(ROOT)).toEqual([]);
  });
});

describe("the check", () => {
  const dir = mkdtempSync(join(tmpdir(), "comment-paths-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads comments, not strings, and takes paths and file names from them", () => {
    const text = '// see src/a.ts\nconst s = "src/not-a-comment.ts"; /* docs/b.md, */\n/** out.csv and x.ts. */\n';
    expect(comments("f.ts", text).map((c) => c.line)).toEqual([1, 2, 3]);
    expect(comments("f.ts", text).flatMap((c) => pathTokens(c.text))).toEqual(["src/a.ts", "docs/b.md", "x.ts"]);
    expect(pathTokens("the tables (src/cli/*-options.ts; shared.ts)")).toEqual(["src/cli/*-options.ts", "shared.ts"]);
  });

  it("fails on a path that is not there and on a document outside the repository", () => {
    mkdirSync(join(dir, "src", "store", "sqlite"), { recursive: true });
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "bench.md"), "");
    writeFileSync(join(dir, "src", "store", "sqlite", "db.ts"), "");
    writeFileSync(join(dir, "src", "cli-options.ts"), "");
    writeFileSync(
      join(dir, "src", "store", "a.ts"),
      [
        "// sqlite/db.ts, store/sqlite/db.ts, src/store/sqlite/db.ts, docs/bench.md, db.ts, src/*-options.ts: all there",
        "// spec/mobile-scales.ts moved; notes.md never was",
        "/** as /work/shared/spec/api.md says */",
        "export const a = 1;",
      ].join("\n"),
    );
    expect(stalePaths(dir)).toEqual([
      "src/store/a.ts:2: spec/mobile-scales.ts",
      "src/store/a.ts:2: notes.md",
      "src/store/a.ts:3: /work/shared/spec/api.md",
    ]);
  });
});
