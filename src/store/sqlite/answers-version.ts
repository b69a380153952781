// A cheap version of the stored answers: a counter that triggers (schema migration 3) raise on
// every change to the lookups table. Addresses change only with their lookups row (answers.ts
// writes both in one transaction), so an unchanged counter means unchanged answers.
import type { Db } from "./db.js";

export function answersVersion(db: Db): number {
  return db.prepare("SELECT n FROM answers_version WHERE id = 1").pluck().get() as number;
}
