// After the fetch: each mobile release's rating scale is recorded with it, from the ratings its
// stored answers hold (a release with any 1 or 2 is legacy), so that the database says which scale
// each release is on. The reports read each release's scale from this record (a report of a few
// postcodes judges them on their release's scale, not on what those postcodes alone show).
import type { FetchStats } from "../fetch/fetch-lookup.js";
import type { Logger } from "../log/logger.js";
import type { Lookup } from "../contract/fields.js";
import { SCALES } from "../contract/mobile-scales.js";
import type { Store } from "../store/store.js";

/**
 * `mobile`: what this run fetched. A night that stored no new mobile answer changes no release's
 * evidence, so it skips the scan of every stored answer (at scale, the one cost of a night that
 * sends nothing).
 */
export async function recordMobileScales(store: Store, config: { lookups: readonly Lookup[]; providers: readonly string[] }, mobile: FetchStats, log: Logger): Promise<void> {
  if (!config.lookups.includes("mobile") || mobile.ok === 0) return;
  for (const s of await store.releases.recordScales(config.providers))
    log.debug(`mobile release ${s.release ?? "(unnamed)"}: ${s.legacyRatings.toLocaleString("en-GB")} ratings of 1 or 2 among ${s.ratings.toLocaleString("en-GB")}: ${SCALES[s.scale].title}`, { event: "mobile-scale" });
}
