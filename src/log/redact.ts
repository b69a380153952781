// The one redactor: every configured key, and any run of its characters that gives it away (half
// of it, or MIN_RUN or more with a digit: maskedRun), becomes ***. Text is redacted before it is
// shortened, stored or logged, so a cut can never leave a piece of a key behind.
export const MIN_RUN = 6;
const MASK = "***";
// Subscription keys are 32 hex characters; nothing legitimate in a message looks like that, so any
// such run (a key we were not given, echoed by a gateway) is masked too.
const KEY_LIKE = /[0-9a-f]{32,}/gi;

export class Redactor {
  /** each secret with every MIN_RUN-character piece of it */
  private readonly secrets: { secret: string; pieces: Set<string> }[] = [];
  /** any piece, as one regular expression: a text scan in native code instead of a slice per position */
  private anyPiece: RegExp | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string): void {
    if (secret.length === 0 || this.secrets.some((s) => s.secret === secret)) return;
    const pieces = new Set<string>();
    // a key this short can only be masked whole
    if (secret.length < MIN_RUN) pieces.add(secret);
    else for (let i = 0; i + MIN_RUN <= secret.length; i++) pieces.add(secret.slice(i, i + MIN_RUN));
    this.secrets.push({ secret, pieces });
    const all = this.secrets.flatMap((s) => [...s.pieces]);
    this.anyPiece = new RegExp(all.map((p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"));
  }

  /** Whether `text` may hold a configured secret or a piece of one (one scan: cheap enough for every answer body). */
  holdsSecret(text: string): boolean {
    return this.anyPiece !== null && this.anyPiece.test(text);
  }

  /** Masks each stretch of `text` that gives a secret away (maskedRun); the rest is kept as it was. */
  redact(text: string): string {
    return (this.holdsSecret(text) ? this.redactConfigured(text) : text).replace(KEY_LIKE, MASK);
  }

  private redactConfigured(text: string): string {
    const masked = new Uint8Array(text.length);
    let any = false;
    for (const s of this.secrets)
      for (const [from, to] of coveredRuns(text, s.pieces))
        if (maskedRun(text.slice(from, to), s.secret)) {
          masked.fill(1, from, to);
          any = true;
        }
    if (!any) return text;
    let out = "";
    for (let i = 0; i < text.length; i++) {
      if (!masked[i]) out += text[i];
      else if (i === 0 || !masked[i - 1]) out += MASK;
    }
    return out;
  }
}

/** The maximal stretches of `text` covered by pieces of one secret, as [from, to) pairs. */
function coveredRuns(text: string, pieces: Set<string>): [number, number][] {
  const covered = new Uint8Array(text.length);
  for (const n of new Set([...pieces].map((p) => p.length)))
    for (let i = 0; i + n <= text.length; i++) if (pieces.has(text.slice(i, i + n))) covered.fill(1, i, i + n);
  const runs: [number, number][] = [];
  for (let i = 0; i < text.length; i++) {
    if (!covered[i]) continue;
    let j = i;
    while (j < text.length && covered[j]) j++;
    runs.push([i, j]);
    i = j;
  }
  return runs;
}

/**
 * Whether a stretch made of a secret's pieces gives the secret away: the whole of a short secret, half
 * of a longer one or more, or any run of MIN_RUN or more holding a digit (no word does; a key's
 * fragment does). A key made of words shares words with the tool's own messages ("simulate",
 * "demo"): those are kept, so a message is never garbled by a key it does not hold.
 */
export function maskedRun(run: string, secret: string): boolean {
  if (secret.length < MIN_RUN) return true;
  return run.length >= Math.max(MIN_RUN, Math.ceil(secret.length / 2)) || /\d/.test(run);
}
