// The simulated dataset: a pure function of (seed, postcode). Both lookups of one postcode are built
// from the same addresses, and tests call generatePostcode() to know the expected answer.
import type { MobileScale } from "../contract/mobile-scales.js";
import {
  CHANNELS,
  DEFAULT_PROVIDERS,
  MAX_UPRN,
  NO_PREDICTION,
  RATING_MAX,
  RATING_MIN,
  SPEED_CATEGORIES,
  SPEED_FIELDS,
  mobileField,
  mobileFields,
  type SpeedField,
} from "../contract/fields.js";
import { rngFor, type Rng } from "./hash.js";
import { describeAddress, pickStreet } from "./addresses.js";
import { compactPostcode } from "../contract/postcode.js";
import { applyReleases } from "./releases.js";
import type { SimAddress } from "./sim-address.js";

export const UNKNOWN_SHARE = 0.03;
export const LARGE_SHARE = 0.01;

export type { SimAddress } from "./sim-address.js";

export interface SimPostcode {
  /** compact, upper case */
  PostCode: string;
  addresses: SimAddress[];
  /** the dataset release (1 = base); names the mobile DBName */
  release: number;
}

/**
 * The simulated answer for a postcode (any case or spacing) in a dataset release (releases.ts): null when the service does not know it
 * (about 3% of valid postcodes, and every invalid string), else its addresses with all values.
 */
export function generatePostcode(
  seed: number | string,
  postcode: string,
  providers: readonly string[] = DEFAULT_PROVIDERS,
  release = 1,
  scale: MobileScale = DEFAULT_SIM_SCALE,
): SimPostcode | null {
  const compact = compactPostcode(postcode);
  return compact === null ? null : generateCompact(String(seed), compact, providers, release, scale);
}

/** generatePostcode for a postcode already compact, upper case and valid. */
export function generateCompact(s: string, compact: string, providers: readonly string[], release = 1, scale: MobileScale = DEFAULT_SIM_SCALE): SimPostcode | null {
  const data = generateLegacy(s, compact, providers, release);
  return data && scale === "current" ? onCurrentScale(data) : data;
}

/** The scale the simulator serves by default: the production service's. */
export const DEFAULT_SIM_SCALE: MobileScale = "current";

/**
 * The legacy 0-4 ratings read on the current 0/3/4 scale: 1 (Red) becomes 0 (None), 2 (Amber) 3
 * (Limited). Monotone, so Indoor <= Outdoor and No4g <= with-4G still hold.
 */
const TO_CURRENT = [0, 0, 3, 3, 4];
function onCurrentScale(data: SimPostcode): SimPostcode {
  return { ...data, addresses: data.addresses.map((a) => ({ ...a, ratings: a.ratings.map((r) => TO_CURRENT[r] ?? r) })) };
}

function generateLegacy(s: string, compact: string, providers: readonly string[], release: number): SimPostcode | null {
  const rng = rngFor(s, "postcode", compact);
  if (rng.chance(UNKNOWN_SHARE)) return null;
  const large = rng.chance(LARGE_SHARE);
  // Skewed towards small postcodes: about 20 addresses on average, as in the UK.
  const count = large ? rng.int(200, 800) : 1 + Math.floor(59 * rng.next() ** 2);
  const street = pickStreet(rng);
  const rural = isRuralDistrict(s, compact);
  const profile = speedProfile(rng, rural);
  // Coverage follows the area (most postcodes well served by every network, some rural ones by
  // few), worse in a rural district, with each provider a little better or worse there.
  const area = clamp(rng.pick(AREA_QUALITY) - (rural ? 1 : 0));
  const quality = providers.map(() => clamp(area - (rng.chance(0.15) ? 1 : 0)));
  const slots = ratingSlots(providers);
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
      ratings: drawRatings(a, slots, quality),
    });
  }
  return { PostCode: compact, addresses: release > 1 ? applyReleases(s, compact, addresses, release, providers) : addresses, release };
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

/** A quarter of districts (the outward code) are rural: fewer superfast postcodes, weaker mobile signal. Coverage that varies by district is what a sample stratified by district is for. */
export function isRuralDistrict(seed: string, compact: string): boolean {
  return rngFor(seed, "district", compact.slice(0, -3)).chance(RURAL_DISTRICT_SHARE);
}
export const RURAL_DISTRICT_SHARE = 0.25;

/** How well served the postcode is: chance of each category per address. */
function speedProfile(rng: Rng, rural: boolean): SpeedProfile {
  return { superfast: rng.chance(rural ? 0.6 : 0.9) ? 0.95 : 0.1, ultrafast: rng.chance(rural ? 0.15 : 0.45) ? 0.85 : 0 };
}

// Typical full-fibre tiers, download and upload in Mbit/s.
const ULTRAFAST_TIERS = [[300, 50], [330, 50], [500, 75], [900, 110], [1000, 115], [1000, 220]] as const;

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Every speed field at -1; copied per address (a spread of a literal is far cheaper than fromEntries). */
const NO_SPEEDS = Object.freeze(Object.fromEntries(SPEED_FIELDS.map((f) => [f, NO_PREDICTION])) as Record<SpeedField, number>);

function drawSpeeds(rng: Rng, profile: SpeedProfile): Record<SpeedField, number> {
  const speeds = { ...NO_SPEEDS };
  if (rng.chance(0.02)) return speeds; // no prediction at all
  const drawn: Record<(typeof SPEED_CATEGORIES)[number]["name"], readonly [number, number] | null> = {
    Bb: rng.chance(0.97) ? [round1(1 + rng.next() * 15), round1(0.2 + rng.next() * 1.3)] : null,
    Sfbb: rng.chance(profile.superfast) ? [round1(30 + rng.next() * 50), round1(5 + rng.next() * 15)] : null,
    Ufbb: rng.chance(profile.ultrafast) ? rng.pick(ULTRAFAST_TIERS) : null,
  };
  let best: readonly [number, number] | null = null;
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

/** Where the four ratings of each provider and channel sit in mobileFields(providers). */
interface RatingSlots {
  outdoor: number;
  indoor: number;
  outdoorNo4g: number;
  indoorNo4g: number;
  isData: boolean;
  provider: number;
}
const slotsCache = new Map<string, { slots: RatingSlots[]; size: number }>();
function ratingSlots(providers: readonly string[]): { slots: RatingSlots[]; size: number } {
  const key = providers.join(",");
  let entry = slotsCache.get(key);
  if (entry === undefined) {
    if (slotsCache.size >= 16) slotsCache.clear();
    const fields = mobileFields(providers);
    const at = (name: string) => fields.indexOf(name);
    const slots = providers.flatMap((p, provider) =>
      CHANNELS.map((c) => ({
        outdoor: at(mobileField(p, c, "Outdoor", "")),
        indoor: at(mobileField(p, c, "Indoor", "")),
        outdoorNo4g: at(mobileField(p, c, "Outdoor", "No4g")),
        indoorNo4g: at(mobileField(p, c, "Indoor", "No4g")),
        isData: c === "Data",
        provider,
      })),
    );
    entry = { slots, size: fields.length };
    slotsCache.set(key, entry);
  }
  return entry;
}

const clamp = (x: number) => (x < RATING_MIN ? RATING_MIN : x > RATING_MAX ? RATING_MAX : x);
const AREA_QUALITY = [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 2, 1] as const;
const OUTDOOR_STEP = [-1, 0, 0, 0, 0, 0, 0, 0, 1] as const;
/** What the building costs indoors, the same for every network: thick walls block them all. */
const BUILDING_LOSS = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2] as const;
const INDOOR_LOSS = [0, 0, 0, 0, 0, 0, 1] as const;
const NO4G_LOSS = [0, 0, 1, 2] as const;

/** Ratings with Indoor <= Outdoor and No4g <= with-4G, as observed in the live service. */
function drawRatings(rng: Rng, { slots, size }: { slots: RatingSlots[]; size: number }, quality: readonly number[]): number[] {
  const ratings = new Array<number>(size).fill(0);
  const building = rng.pick(BUILDING_LOSS);
  for (const s of slots) {
    const outdoor = clamp(quality[s.provider]! + rng.pick(OUTDOOR_STEP) - (s.isData && rng.chance(0.3) ? 1 : 0));
    const indoor = clamp(outdoor - building - rng.pick(INDOOR_LOSS));
    const outdoorNo4g = clamp(outdoor - rng.pick(NO4G_LOSS));
    ratings[s.outdoor] = outdoor;
    ratings[s.indoor] = indoor;
    ratings[s.outdoorNo4g] = outdoorNo4g;
    ratings[s.indoorNo4g] = clamp(Math.min(indoor, outdoorNo4g) - (rng.chance(0.3) ? 1 : 0));
  }
  return ratings;
}
