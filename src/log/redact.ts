// The one redactor: every configured key, and any run of MIN_RUN or more characters of one, becomes
// ***. Text is redacted before it is shortened, stored or logged, so a cut can never leave a piece
// of a key behind.
export const MIN_RUN = 6;
const MASK = "***";
// Subscription keys are 32 hex characters; nothing legitimate in a message looks like that, so any
// such run (a key we were not given, echoed by a gateway) is masked too.
const KEY_LIKE = /[0-9a-f]{32,}/gi;

export class Redactor {
  /** every MIN_RUN-character piece of every secret */
  private readonly pieces = new Set<string>();
  /** any piece, as one regular expression: a text scan in native code instead of a slice per position */
  private anyPiece: RegExp | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string): void {
    if (secret.length === 0) return;
    // a key this short can only be masked whole
    if (secret.length < MIN_RUN) this.pieces.add(secret);
    else for (let i = 0; i + MIN_RUN <= secret.length; i++) this.pieces.add(secret.slice(i, i + MIN_RUN));
    this.anyPiece = new RegExp([...this.pieces].map((p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"));
  }

  /** Whether `text` holds a configured secret or a piece of one (one scan: cheap enough for every answer body). */
  holdsSecret(text: string): boolean {
    return this.anyPiece !== null && this.anyPiece.test(text);
  }

  /** Masks each stretch of `text` covered by pieces of a secret; the rest is kept as it was. */
  redact(text: string): string {
    return (this.holdsSecret(text) ? this.redactConfigured(text) : text).replace(KEY_LIKE, MASK);
  }

  private redactConfigured(text: string): string {
    if (this.pieces.size === 0 || text.length === 0) return text;
    const covered = new Uint8Array(text.length);
    let any = false;
    const lengths = new Set([...this.pieces].map((p) => p.length));
    for (const n of lengths)
      for (let i = 0; i + n <= text.length; i++)
        if (this.pieces.has(text.slice(i, i + n))) {
          covered.fill(1, i, i + n);
          any = true;
        }
    if (!any) return text;
    let out = "";
    for (let i = 0; i < text.length; i++) {
      if (!covered[i]) out += text[i];
      else if (i === 0 || !covered[i - 1]) out += MASK;
    }
    return out;
  }
}
