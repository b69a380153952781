// The answer writers' shared decisions (src/store/shared/answer-writes.ts), as tables: what a record does to
// its pair's versions, what its status row holds, and the write queue both engines commit from.
import { describe, expect, it } from "vitest";
import type { FinalRecord } from "../src/contract/records.js";
import {
  failureRowValues,
  failureUpsertSql,
  isVersioned,
  statusRowValues,
  statusUpsertSql,
  storedVersionHash,
  versionStep,
  writerSettings,
  writtenContent,
  type VersionedRecord,
} from "../src/store/shared/answer-writes.js";
import type { ReleaseBook, ReleaseInfo } from "../src/store/shared/releases.js";
import type { CurrentVersion } from "../src/store/shared/versions.js";
import { writeQueue } from "../src/store/commit-group.js";
import { ratingEvidence } from "../src/store/sql/scale-sql.js";
import { okRecord } from "./helpers/records.js";

/** A release book held in memory: broadband's releases by name, oldest first. */
function book(names: string[]): ReleaseBook & { names: string[] } {
  const info = (name: string): ReleaseInfo => ({ id: names.indexOf(name) + 1, name });
  const b = {
    names,
    newest: () => (names.length > 0 ? info(names.at(-1)!) : null),
    ensure: (_lookup: unknown, name: string) => {
      if (!names.includes(name)) names.push(name);
      return info(name);
    },
    startDated: (_lookup: unknown, at: string) => b.ensure(null, at.slice(0, 10)),
  };
  return b as ReleaseBook & { names: string[] };
}

const notFound: VersionedRecord = { ...okRecord("AB12CD", []), status: "not_found" } as VersionedRecord;
const failed: FinalRecord = { ...okRecord("AB12CD", []), status: "failed", httpStatus: 503, attempts: 4, lastError: "HTTP 503" } as FinalRecord;
const settings = writerSettings({ providers: ["ProvA", "ProvB"] });
const answer = okRecord("AB12CD", [30, 10, 20], "2026-02-01T00:00:00.000Z", 7);
const same = writtenContent(answer, settings);
const current = (hash: string | null, over: Partial<CurrentVersion> = {}): CurrentVersion => ({
  id: 5,
  status: "ok",
  hash,
  simulated: 0,
  providers: null,
  confirmed: "2026-01-01",
  ...over,
});

describe("versionStep", () => {
  it.each([
    { name: "a first answer adds a version, retiring none, on the newest release", cur: null, hash: null, kind: "replace", retire: null, release: "2026-01-01" },
    { name: "the same content again reuses the current version", cur: current(same.hash), hash: same.hash, kind: "seen-again", retire: undefined, release: "2026-01-01" },
    { name: "changed content on the newest release retires it and starts a dated release", cur: current("other"), hash: "other", kind: "replace", retire: 5, release: "2026-02-01" },
    {
      name: "changed content confirmed on an older release catches up to the newest",
      cur: current("other", { confirmed: "2025-12-01" }),
      hash: "other",
      kind: "replace",
      retire: 5,
      release: "2026-01-01",
    },
    {
      name: "a real answer replacing a simulated one is a first answer, not a new release",
      cur: current("other", { simulated: 1 }),
      hash: "other",
      kind: "replace",
      retire: 5,
      release: "2026-01-01",
    },
  ])("$name", ({ cur, hash, kind, retire, release }) => {
    const step = versionStep(answer, settings, same, cur, hash, book(["2025-12-01", "2026-01-01"]));
    expect(step.kind).toBe(kind);
    expect(step.release).toBe(release);
    if (step.kind === "seen-again") expect(step.versionId).toBe(5);
    else {
      expect(step.retire?.id).toBe(retire ?? undefined);
      expect(step.version).toEqual({ postcode: "AB12CD", lookup: "broadband", content: same.content, hash: same.hash, release, at: answer.fetchedAt, runId: 7 });
      expect(step.version.content.rows.map((r) => r[0])).toEqual([10, 20, 30]);
    }
  });

  it("takes the user's label for an answer that names no release", () => {
    const labelled = writerSettings({ providers: [], release: "spring" });
    const b = book(["2026-01-01"]);
    expect(versionStep(answer, labelled, same, null, null, b).release).toBe("spring");
    expect(b.names).toEqual(["2026-01-01", "spring"]);
  });
});

describe("what a record writes", () => {
  it("a not-found has a version without rows; a failure has none", () => {
    expect(isVersioned(notFound)).toBe(true);
    expect(isVersioned(failed)).toBe(false);
    expect(writtenContent(notFound, settings).content).toEqual({ status: "not_found", simulated: false, providers: null, rows: [] });
    expect(writtenContent(notFound, settings).hash).not.toBe(same.hash);
  });

  it("a migrated version's hash, from its stored rows, equals the hash of the same answer fetched again", () => {
    expect(storedVersionHash("broadband", current(null), same.content.rows)).toBe(same.hash);
    expect(storedVersionHash("broadband", current(null, { simulated: 1 }), same.content.rows)).not.toBe(same.hash);
  });

  it("each status row fills its upsert's parameters, on both engines' spellings", () => {
    const params = (sql: string) => sql.match(/\$\d+/g)!.map((p) => Number(p.slice(1)));
    const dollar = (i: number) => `$${i}`;
    const row = statusRowValues(answer, same.content, 0, 9, "2026-01-01");
    expect(row).toEqual(["AB12CD", "broadband", "ok", 200, 1, null, "2026-02-01T00:00:00.000Z", 7, null, 3, null, 0, 9, "2026-01-01", "2026-02-01T00:00:00.000Z", null, null, null]);
    expect(Math.max(...params(statusUpsertSql(dollar)))).toBe(row.length);
    expect(statusUpsertSql(() => "?").split("?").length - 1).toBe(row.length);
    const failure = failureRowValues(failed, 1);
    expect(failure).toEqual(["AB12CD", "broadband", 503, 4, "HTTP 503", "2026-01-01T00:00:00.000Z", 1, 1]);
    expect(Math.max(...params(failureUpsertSql(dollar)))).toBe(failure.length);
    // a failure keeps the last good answer's dataset, addresses and version
    expect(failureUpsertSql(dollar)).not.toMatch(/(dataset|address_count|version_id|release) = excluded/);
    // and never makes it younger: the time the API last returned it stays
    expect(failureUpsertSql(dollar)).not.toMatch(/returned_at/);
    // nor its scale evidence, which goes with those addresses
    expect(failureUpsertSql(dollar)).not.toMatch(/scale_|rating_counts/);
  });

  it("a mobile answer's status row counts its ratings and those of 1 or 2 (its release's scale evidence), and its addresses at each indoor rating", () => {
    expect(ratingEvidence([[1, "a", 4, 3, null, 0], [2, "b", 2, 1, 4, null]])).toEqual({ ratings: 6, legacy: 2 });
    expect(ratingEvidence([])).toEqual({ ratings: 0, legacy: 0 });
    const mobile: FinalRecord = {
      ...answer,
      lookup: "mobile",
      answer: { lookup: "mobile", dataset: "M1", addresses: [{ uprn: 1, address: "1 A St", ratings: [4, 2, 0, 3] }, { uprn: 2, address: "2 A St", ratings: [1, 4, 4, 0] }] },
    } as FinalRecord;
    const content = writtenContent(mobile as VersionedRecord, writerSettings({ providers: ["EE"] })).content;
    expect(statusRowValues(mobile, content, 0, 9, "M1").slice(-3)).toEqual([8, 2, "1,,,,1;,,,,"]);
  });
});

describe("writeQueue", () => {
  it("hands each group over once, in order; after a failure it takes nothing and refuses more", () => {
    const q = writeQueue<number>(undefined, () => {});
    expect(q.take()).toBeNull();
    q.push(1);
    q.push(2);
    expect(q.take()).toEqual([1, 2]);
    expect(q.take()).toBeNull();
    q.push(3);
    const err = q.fail(new Error("disk full"));
    expect(q.failure).toBe(err);
    expect(q.take()).toBeNull();
    expect(() => q.push(4)).toThrow("disk full");
  });
});
