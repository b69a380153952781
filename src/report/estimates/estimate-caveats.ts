// What the estimates assume, said with every one of them, and where the list itself shows the
// assumption is doubtful. The estimate of a share for the whole list treats each unanswered postcode
// as like the answered ones of its stratum; a sample whose sizes are heavy-tailed, or unanswered
// postcodes that the input (rows per postcode) or Ofcom's open data show to be unlike the answered
// ones, can put the true share far outside the interval. Pure.

/** The assumption, in the same words everywhere an estimate is shown. */
export const ESTIMATE_ASSUMPTION =
  "The estimates assume that the unanswered postcodes resemble the answered ones of their stratum (their district, and the values of your --group-by columns).";

/** A group's estimate is left out below this many answered postcodes: one postcode says nothing of its neighbours' spread. */
export const MIN_ANSWERED_FOR_ESTIMATE = 2;

/** Why a group shows no estimate, in the same words in groups.csv, the workbook and report.html. */
export const TOO_FEW_ANSWERED = `no estimate: fewer than ${MIN_ANSWERED_FOR_ESTIMATE} of its postcodes answered`;

/** One postcode of the list, as the checks see it. */
export interface CaveatPostcode {
  answered: boolean;
  /** addresses of its answer (0 unanswered) */
  addresses: number;
  /** how many addresses it is expected to hold, known for every postcode (input rows naming it); null where unknown */
  expected: number | null;
  /** Ofcom's open data: the share of its premises below superfast (0-1); null where unknown */
  belowSuperfast: number | null;
}

/** A sample this large or more is checked for heavy tails: below it every postcode weighs much. */
const TAIL_SAMPLE = 10;
/** The largest answered postcode holding more than this share of the answered addresses is a heavy tail. */
const TAIL_SHARE = 0.2;
/** Unanswered postcodes this many times larger (or smaller) on average than the answered ones are unlike them. */
const SIZE_RATIO = 3;
/** ...when they hold at least this share of the list's expected addresses. */
const SIZE_SHARE = 0.2;
/** Open data's below-superfast shares of the two parts differing by more than this many points. */
const OPEN_DATA_POINTS = 10;

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const mean = (xs: readonly number[]) => xs.reduce((t, x) => t + x, 0) / xs.length;

/** The warnings the list's own data gives about the assumption (none when it looks sound). */
export function estimateCaveats(postcodes: readonly CaveatPostcode[]): string[] {
  const answered = postcodes.filter((p) => p.answered);
  const unanswered = postcodes.filter((p) => !p.answered);
  if (unanswered.length === 0 || answered.length === 0) return [];
  return [heavyTail(answered), sizesDiffer(answered, unanswered, postcodes), openDataDiffers(answered, unanswered)].filter((c): c is string => c !== null);
}

function heavyTail(answered: readonly CaveatPostcode[]): string | null {
  const sizes = answered.map((p) => p.addresses).filter((x) => x > 0);
  if (sizes.length < TAIL_SAMPLE) return null;
  const total = sizes.reduce((t, x) => t + x, 0);
  // not Math.max(...sizes): a list of some 120,000 answered postcodes overflows the call stack
  const largest = sizes.reduce((m, x) => Math.max(m, x), 0);
  if (largest / total <= TAIL_SHARE) return null;
  return `The answered postcodes' sizes are heavy-tailed: the largest (${largest.toLocaleString("en-GB")} addresses) holds ${pct(largest / total)} of the answered addresses, so the interval may be too narrow.`;
}

function sizesDiffer(answered: readonly CaveatPostcode[], unanswered: readonly CaveatPostcode[], all: readonly CaveatPostcode[]): string | null {
  if (all.some((p) => p.expected === null)) return null;
  const sizes = all.map((p) => p.expected!);
  if (sizes.every((x) => x === sizes[0])) return null;
  const total = sizes.reduce((t, x) => t + x, 0);
  const rest = unanswered.reduce((t, p) => t + p.expected!, 0);
  const ratio = mean(unanswered.map((p) => p.expected!)) / Math.max(mean(answered.map((p) => p.expected!)), Number.MIN_VALUE);
  if (total === 0 || rest / total < SIZE_SHARE || (ratio <= SIZE_RATIO && ratio >= 1 / SIZE_RATIO)) return null;
  return (
    `Your input's rows show the unanswered postcodes to be unlike the answered ones: they are ${pct(unanswered.length / all.length)} of the list's postcodes ` +
    `but hold ${pct(rest / total)} of its rows, so the estimates may be far off until they are answered.`
  );
}

function openDataDiffers(answered: readonly CaveatPostcode[], unanswered: readonly CaveatPostcode[]): string | null {
  const known = (ps: readonly CaveatPostcode[]) => ps.map((p) => p.belowSuperfast).filter((x): x is number => x !== null);
  const a = known(answered);
  const u = known(unanswered);
  if (a.length === 0 || u.length === 0) return null;
  const [ma, mu] = [mean(a), mean(u)];
  if (Math.abs(ma - mu) * 100 <= OPEN_DATA_POINTS) return null;
  return (
    `Ofcom's open data shows the unanswered postcodes to be unlike the answered ones: on average ${pct(mu)} of their premises are below superfast, ` +
    `against ${pct(ma)} of the answered ones', so the estimates may be far off until they are answered.`
  );
}
