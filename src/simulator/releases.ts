// Dataset releases: release 1 is the base dataset; each later release changes the data of about a
// tenth of postcodes, as a republished coverage dataset does: mostly upgrades (full fibre arriving,
// a network improving), some downgrades (predictions revised down), and now and then an address
// built or demolished. Deterministic: a pure function of (seed, postcode, release).
import { NO_PREDICTION, RATING_MAX, RATING_MIN, SPEED_CATEGORIES, mobileFields } from "../contract/fields.js";
import { rngFor, type Rng } from "./hash.js";
import type { SimAddress } from "./sim-address.js";

/** Share of postcodes whose data a release changes. */
export const RELEASE_CHANGE_SHARE = 0.1;

const BASE_DB_NAME_TIME = Date.UTC(2024, 5, 4, 12, 54);
const QUARTER_MS = 91 * 24 * 3600 * 1000;

/** The mobile DBName of a release: release 1 is the live one (MobileAvailability-202406041254), then quarterly. */
export function releaseDbName(release: number): string {
  const d = new Date(BASE_DB_NAME_TIME + (release - 1) * QUARTER_MS);
  const p = (n: number) => String(n).padStart(2, "0");
  return `MobileAvailability-${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}`;
}

export function checkRelease(release: number): void {
  if (!Number.isInteger(release) || release < 1 || release > 1000) throw new RangeError(`release must be a whole number 1..1000, got ${release}`);
}

// Full-fibre tiers a new rollout brings, download and upload in Mbit/s.
const FIBRE = [[500, 75], [900, 110], [1000, 115], [1000, 220]] as const;

/** The addresses of a postcode at `release`, from its base (release 1) addresses; the input is not changed. */
export function applyReleases(seed: string, compact: string, base: SimAddress[], release: number, providers: readonly string[]): SimAddress[] {
  let addresses = base;
  for (let r = 2; r <= release; r++) {
    const rng = rngFor(seed, "release", r, compact);
    if (!rng.chance(RELEASE_CHANGE_SHARE)) continue;
    addresses = addresses.map((a) => ({ ...a, speeds: { ...a.speeds }, ratings: [...a.ratings] }));
    const up = rng.chance(0.8);
    if (rng.chance(0.7)) for (const a of addresses) changeSpeeds(rng, a, up);
    if (rng.chance(0.6)) changeRatings(rng, addresses, providers, up || rng.chance(0.3));
    if (rng.chance(0.05) && addresses.length > 1) addresses.pop();
    else if (rng.chance(0.05)) addresses.push(newBuild(rng, addresses, r));
  }
  return addresses;
}

function changeSpeeds(rng: Rng, a: SimAddress, up: boolean): void {
  const s = a.speeds;
  if (up) {
    if (!rng.chance(0.8)) return;
    const [down, upload] = rng.pick(FIBRE);
    if (s.MaxUfbbPredictedDown < down) {
      s.MaxUfbbPredictedDown = down;
      s.MaxUfbbPredictedUp = upload;
    }
  } else {
    if (!rng.chance(0.5)) return;
    s.MaxUfbbPredictedDown = s.MaxUfbbPredictedUp = NO_PREDICTION;
    s.MaxSfbbPredictedDown = s.MaxSfbbPredictedUp = NO_PREDICTION;
  }
  // The overall maximum is the best category's.
  let best: [number, number] = [NO_PREDICTION, NO_PREDICTION];
  for (const c of SPEED_CATEGORIES) if (s[c.down] > best[0]) best = [s[c.down], s[c.up]];
  s.MaxPredictedDown = best[0];
  s.MaxPredictedUp = best[1];
}

/** One provider's ratings a step up or down at every address (the ordering of its ratings holds). */
function changeRatings(rng: Rng, addresses: SimAddress[], providers: readonly string[], up: boolean): void {
  const perProvider = mobileFields(providers).length / providers.length;
  const first = rng.int(0, providers.length - 1) * perProvider;
  const step = up ? 1 : -1;
  for (const a of addresses)
    for (let k = first; k < first + perProvider; k++) a.ratings[k] = Math.min(RATING_MAX, Math.max(RATING_MIN, a.ratings[k]! + step));
}

function newBuild(rng: Rng, addresses: SimAddress[], release: number): SimAddress {
  const last = addresses[addresses.length - 1]!;
  const street = last.AddressShortDescription.split(", ").pop()!;
  const uprns = new Set(addresses.map((a) => a.UPRN));
  let uprn = 1e11 + (rng.uint53() % 9e11);
  while (uprns.has(uprn)) uprn++;
  return { ...last, UPRN: uprn, AddressShortDescription: `PLOT ${release}${rng.int(1, 99)}, ${street}`, speeds: { ...last.speeds }, ratings: [...last.ratings] };
}

