// Decisions both store engines make the same way, written once (src/store/shared/): tables of
// inputs and what each engine stores or answers for them.
import { describe, expect, it } from "vitest";
import { grantReservation } from "../src/store/shared/ledger.js";
import { datedReleaseName, heldReleaseBook, mayMeetProvisional, provisionalMoves } from "../src/store/shared/releases.js";
import { newLease, takenOver } from "../src/store/shared/leases.js";

describe("grantReservation", () => {
  it.each([
    { limit: 100, used: 0, n: 10, granted: 10, left: 90 },
    { limit: 100, used: 95, n: 10, granted: 5, left: 0 },
    { limit: 100, used: 100, n: 10, granted: 0, left: 0 },
    // a dead holder's reservations counted as spent can take the use past the limit
    { limit: 100, used: 130, n: 10, granted: 0, left: 0 },
    { limit: 100, used: 40, n: 0, granted: 0, left: 60 },
  ])("limit $limit, used $used, asked $n: grants $granted, leaves $left", ({ limit, used, n, granted, left }) => {
    expect(grantReservation(limit, used, n)).toEqual({ granted, left });
  });
});

describe("datedReleaseName", () => {
  it.each([
    { taken: [], name: "2026-03-04" },
    { taken: ["2026-03-04"], name: "2026-03-04.2" },
    { taken: ["2026-03-04", "2026-03-04.2", "2026-03-04.3"], name: "2026-03-04.4" },
    { taken: ["2026-03-03"], name: "2026-03-04" },
  ])("past $taken: $name", ({ taken, name }) => {
    expect(datedReleaseName("2026-03-04T22:10:00.000Z", (n) => taken.includes(n))).toBe(name);
  });
});

describe("provisionalMoves", () => {
  it.each([
    { names: ["2026-11-27"], move: null },
    { names: ["2026-11-27", "R1"], move: { from: ["2026-11-27"], to: "R1" } },
    // another machine's stand-in committed after the name was learnt
    { names: ["R1", "2026-11-27", "2026-11-27.2"], move: { from: ["2026-11-27", "2026-11-27.2"], to: "R1" } },
    { names: ["R1", "R2"], move: null },
  ])("mobile releases $names", ({ names, move }) => {
    expect(provisionalMoves("mobile", names)).toEqual(move);
  });

  it("broadband's dated releases are its real ones: never moved", () => {
    expect(provisionalMoves("broadband", ["2026-11-01", "2026-12-01"])).toBeNull();
    expect(mayMeetProvisional(["broadband"], [])).toBe(false);
  });

  it("mobile groups take turns until a named release stands alone", () => {
    expect(mayMeetProvisional(["mobile"], [])).toBe(true);
    expect(mayMeetProvisional(["mobile"], [{ lookup: "mobile", name: "2026-11-27" }])).toBe(true);
    expect(mayMeetProvisional(["mobile"], [{ lookup: "mobile", name: "R1" }])).toBe(false);
  });
});

describe("leases taken", () => {
  it.each([
    { expires: 1_000, now: 1_000, why: "expired" },
    { expires: 999, now: 1_000, why: "expired" },
    { expires: 1_001, now: 1_000, why: "gone" },
  ])("a lease expiring at $expires, taken over at $now, was free because $why", ({ expires, now, why }) => {
    expect(takenOver({ host: "h", pid: 7, run_id: 3, expires_ms: expires }, now)).toEqual({ pid: 7, host: "h", runId: 3, why });
  });

  it("a new lease has no run and expires its time to live after it was taken", () => {
    const holder = { host: "h", pid: 7, process: null };
    expect(newLease(4, holder, Date.UTC(2026, 0, 1), 60_000)).toEqual({
      id: 4,
      holder,
      runId: null,
      takenAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2026-01-01T00:01:00.000Z",
    });
  });
});

describe("heldReleaseBook", () => {
  const at = "2026-03-04T22:10:00.000Z";
  const stored = () => [
    { id: 1, lookup: "mobile" as const, name: "MOB-1", runId: 1 },
    { id: 2, lookup: "mobile" as const, name: "2026-03-04", runId: 9 },
    { id: 3, lookup: "broadband" as const, name: "2026-03-04", runId: 9 },
  ];

  it("finds a stored release, adds one first seen as the newest, and names a dated one past those taken", () => {
    const held = heldReleaseBook(stored());
    expect(held.book.ensure("mobile", "MOB-1", at, 9)).toMatchObject({ id: 1, name: "MOB-1" });
    expect(held.book.startDated("broadband", at, 9)).toMatchObject({ id: 4, name: "2026-03-04.2" });
    expect(held.book.newest("broadband")).toMatchObject({ id: 4, name: "2026-03-04.2" });
    expect(held.added).toEqual([{ lookup: "broadband", name: "2026-03-04.2", at, runId: 9 }]);
    expect(held.renames).toEqual([]);
  });

  it("renames the run's provisional release: a stored one by a rename, one not stored yet where it waits", () => {
    const held = heldReleaseBook(stored());
    expect(held.book.ensure("mobile", "MOB-2", at, 9)).toMatchObject({ id: 2, name: "MOB-2" });
    expect(held.renames).toEqual([{ lookup: "mobile", from: "2026-03-04", to: "MOB-2" }]);
    const fresh = heldReleaseBook(stored().filter((r) => r.lookup !== "mobile"));
    fresh.book.startDated("mobile", at, 9);
    fresh.book.ensure("mobile", "MOB-3", at, 9);
    expect(fresh.added).toEqual([{ lookup: "mobile", name: "MOB-3", at, runId: 9 }]);
    expect(fresh.renames).toEqual([]);
    // another run's dated release is not provisional for this one
    expect(heldReleaseBook(stored()).book.ensure("mobile", "MOB-2", at, 10)).toMatchObject({ id: 4, name: "MOB-2" });
  });
});
