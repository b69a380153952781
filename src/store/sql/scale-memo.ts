// The scale evidence of every stored mobile answer, as recordScales last counted it, kept with the
// answers' version (raised by every change to an answer) and how many answers it counted. A report
// whose postcodes hold each of those answers, at that version, would count the same ratings: a
// batch's report (its whole list) then reads this instead of counting every rating a second time.
import type { ScaleEvidence } from "../../contract/mobile-scales.js";
import { EVIDENCE_ANSWERS } from "./scale-sql.js";
import type { SqlSession } from "./session.js";

export interface ScaleMemo {
  version: number;
  /** the providers whose fields were counted, joined */
  providers: string;
  /** per release, the answers the evidence counted */
  answers: ReleaseAnswers;
  evidence: readonly ScaleEvidence[];
}

/** Per release (in the evidence's order), the answers scaleEvidenceSql counts. */
export type ReleaseAnswers = { release: string | null; answers: number }[];

/** One per store: what its recordScales counted last. */
export interface ScaleMemoBox {
  memo: ScaleMemo | null;
}

export async function answersVersion(q: SqlSession): Promise<number> {
  return Number((await q.get<{ n: number | string }>("SELECT n FROM answers_version WHERE id = 1"))!.n);
}

/**
 * The answers of `postcodeTable` that scaleEvidenceSql counts (those with addresses), per release,
 * in its order: cheap (no rating is read), and read afresh, since an answer returned again moves
 * its time without a new version.
 */
export async function releaseAnswers(q: SqlSession, postcodeTable: string): Promise<ReleaseAnswers> {
  const order = q.dialect.byteOrder === "" ? "" : ` ${q.dialect.byteOrder}`;
  const rows = await q.all<{ release: string | null; answers: number | string }>(
    `SELECT l.dataset AS release, COUNT(*) AS answers
       FROM ${postcodeTable} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup = 'mobile'
      WHERE (${EVIDENCE_ANSWERS}) AND EXISTS (SELECT 1 FROM mobile_addresses m WHERE m.postcode = s.postcode)
      GROUP BY l.dataset ORDER BY MIN(l.fetched_at${order}), l.dataset${order}`,
  );
  return rows.map((r) => ({ release: r.release, answers: Number(r.answers) }));
}

/** The memo's evidence when it holds for `postcodeTable` as the session reads it now; null to count afresh. */
export async function memoEvidence(q: SqlSession, box: ScaleMemoBox | undefined, postcodeTable: string, providers: readonly string[]): Promise<ScaleEvidence[] | null> {
  const memo = box?.memo;
  if (!memo || memo.providers !== providers.join(",") || memo.version !== (await answersVersion(q))) return null;
  // every answer counted is in the scope (none hidden as expired), at the same version: the same rows, the same sums
  const now = await releaseAnswers(q, postcodeTable);
  const counted = new Map(memo.answers.map((r) => [r.release, r.answers]));
  if (now.length !== counted.size || now.some((r) => counted.get(r.release) !== r.answers)) return null;
  const evidence = new Map(memo.evidence.map((e) => [e.release, e]));
  if (now.some((r) => !evidence.has(r.release))) return null;
  return now.map((r) => ({ ...evidence.get(r.release)! }));
}
