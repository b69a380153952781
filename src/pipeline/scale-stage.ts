// After the fetch: each mobile release's rating scale is recorded with it, from the ratings its
// stored answers hold (a release with any 1 or 2 is legacy), so that the database says which scale
// each release is on. The reports decide theirs by the same rule over their own postcodes.
import type { Logger } from "../log/logger.js";
import type { Lookup } from "../spec/fields.js";
import { SCALES } from "../spec/mobile-scales.js";
import type { Store } from "../store/store.js";

export async function recordMobileScales(store: Store, config: { lookups: readonly Lookup[]; providers: readonly string[] }, log: Logger): Promise<void> {
  if (!config.lookups.includes("mobile")) return;
  for (const s of await store.releases.recordScales(config.providers))
    log.debug(`mobile release ${s.release ?? "(unnamed)"}: ${s.legacyRatings.toLocaleString("en-GB")} ratings of 1 or 2 among ${s.ratings.toLocaleString("en-GB")}: ${SCALES[s.scale].title}`, { event: "mobile-scale" });
}
