// The simulated dataset: a pure function of (seed, postcode). Both lookups of one postcode are built
// from the same addresses, and tests call generatePostcode() to know the expected answer.
import {
  CHANNELS,
  DEFAULT_PROVIDERS,
  NO_PREDICTION,
  RATING_MAX,
  RATING_MIN,
  SPEED_CATEGORIES,
  SPEED_FIELDS,
  mobileField,
  type SpeedField,
} from "../spec/fields.js";
import { rngFor, type Rng } from "./hash.js";
import { describeAddress, pickStreet } from "./addresses.js";
import { compactPostcode } from "./postcode.js";

export const UNKNOWN_SHARE = 0.03;
export const LARGE_SHARE = 0.01;
export const MAX_UPRN = 999_999_999_999;

export interface SimAddress {
  UPRN: number;
  AddressShortDescription: string;
  /** every field of SPEED_FIELDS; -1 = no prediction */
  speeds: Record<SpeedField, number>;
  /** every field of mobileFields(providers), 0..4 */
  ratings: Record<string, number>;
}

export interface SimPostcode {
  /** compact, upper case */
  PostCode: string;
  addresses: SimAddress[];
}

/**
 * The simulated answer for a postcode (any case or spacing): null when the service does not know it
 * (about 3% of valid postcodes, and every invalid string), else its addresses with all values.
 */
export function generatePostcode(
  seed: number | string,
  postcode: string,
  providers: readonly string[] = DEFAULT_PROVIDERS,
): SimPostcode | null {
  const compact = compactPostcode(postcode);
  if (compact === null) return null;
  const s = String(seed);
  const rng = rngFor(s, "postcode", compact);
  if (rng.chance(UNKNOWN_SHARE)) return null;
  const large = rng.chance(LARGE_SHARE);
  // Skewed towards small postcodes: about 20 addresses on average, as in the UK.
  const count = large ? rng.int(200, 800) : 1 + Math.floor(59 * rng.next() ** 2);
  const street = pickStreet(rng);
  const profile = speedProfile(rng);
  const quality = providers.map(() => rng.int(1, RATING_MAX));
  const seen = new Set<number>();
  const addresses: SimAddress[] = [];
  for (let i = 0; i < count; i++) {
    const a = rngFor(s, "address", compact, i);
    let uprn = drawUprn(a);
    while (seen.has(uprn)) uprn = drawUprn(a);
    seen.add(uprn);
    addresses.push({
      UPRN: uprn,
      AddressShortDescription: describeAddress(a, street, i, large),
      speeds: drawSpeeds(a, profile),
      ratings: drawRatings(a, providers, quality),
    });
  }
  return { PostCode: compact, addresses };
}

/** Mostly 12-digit UPRNs (well above 2^31), some shorter ones as real data has. */
function drawUprn(rng: Rng): number {
  const r = rng.next();
  const [min, max] = r < 0.85 ? [1e11, MAX_UPRN] : r < 0.95 ? [1e10, 1e11 - 1] : [1e5, 2 ** 31 - 1];
  return min + (rng.uint53() % (max - min + 1));
}

interface SpeedProfile {
  superfast: number;
  ultrafast: number;
}

/** How well served the postcode is: chance of each category per address. */
function speedProfile(rng: Rng): SpeedProfile {
  return { superfast: rng.chance(0.9) ? 0.95 : 0.1, ultrafast: rng.chance(0.45) ? 0.85 : 0 };
}

// Typical full-fibre tiers, download and upload in Mbit/s.
const ULTRAFAST_TIERS = [[300, 50], [330, 50], [500, 75], [900, 110], [1000, 115], [1000, 220]] as const;

const round1 = (x: number) => Math.round(x * 10) / 10;

function drawSpeeds(rng: Rng, profile: SpeedProfile): Record<SpeedField, number> {
  const speeds = Object.fromEntries(SPEED_FIELDS.map((f) => [f, NO_PREDICTION])) as Record<SpeedField, number>;
  if (rng.chance(0.02)) return speeds; // no prediction at all
  const drawn: Record<(typeof SPEED_CATEGORIES)[number]["name"], [number, number] | null> = {
    Bb: rng.chance(0.97) ? [round1(1 + rng.next() * 15), round1(0.2 + rng.next() * 1.3)] : null,
    Sfbb: rng.chance(profile.superfast) ? [round1(30 + rng.next() * 50), round1(5 + rng.next() * 15)] : null,
    Ufbb: rng.chance(profile.ultrafast) ? [...rng.pick(ULTRAFAST_TIERS)] : null,
  };
  let best: [number, number] | null = null;
  for (const c of SPEED_CATEGORIES) {
    const v = drawn[c.name];
    if (!v) continue;
    speeds[c.down] = v[0];
    speeds[c.up] = v[1];
    if (!best || v[0] > best[0]) best = v;
  }
  if (best) {
    speeds.MaxPredictedDown = best[0];
    speeds.MaxPredictedUp = best[1];
  }
  return speeds;
}

/** Ratings with Indoor <= Outdoor and No4g <= with-4G, as observed in the live service. */
function drawRatings(rng: Rng, providers: readonly string[], quality: readonly number[]): Record<string, number> {
  const ratings: Record<string, number> = {};
  const clamp = (x: number) => Math.max(RATING_MIN, Math.min(RATING_MAX, x));
  providers.forEach((p, pi) => {
    for (const channel of CHANNELS) {
      const outdoor = clamp(quality[pi]! + rng.pick([-1, 0, 0, 0, 1]) - (channel === "Data" && rng.chance(0.3) ? 1 : 0));
      const indoor = clamp(outdoor - rng.pick([0, 1, 1, 2]));
      const outdoorNo4g = clamp(outdoor - rng.pick([0, 0, 1, 2]));
      const indoorNo4g = clamp(Math.min(indoor, outdoorNo4g) - (rng.chance(0.3) ? 1 : 0));
      ratings[mobileField(p, channel, "Outdoor", "")] = outdoor;
      ratings[mobileField(p, channel, "Indoor", "")] = indoor;
      ratings[mobileField(p, channel, "Outdoor", "No4g")] = outdoorNo4g;
      ratings[mobileField(p, channel, "Indoor", "No4g")] = indoorNo4g;
    }
  });
  return ratings;
}
