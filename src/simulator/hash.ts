// Deterministic pseudo-randomness from strings: the same (seed, postcode, ...) always gives the same stream,
// on every machine and Node version (no Math.random, no platform hashing).

/** cyrb128: a fast 128-bit string hash, returned as four 32-bit words. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [min, max], both inclusive */
  int(min: number, max: number): number;
  /** true with probability p */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** uniform integer in [0, 2^53) */
  uint53(): number;
}

/** sfc32. A class rather than closures: the dataset makes one per address, so creating it must be cheap. */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: readonly [number, number, number, number]) {
    [this.a, this.b, this.c, this.d] = seed;
    // Discard a few outputs: sfc32 mixes poorly in its first rounds.
    for (let i = 0; i < 12; i++) this.next32();
  }

  next32(): number {
    const a = this.a | 0;
    const b = this.b | 0;
    const c = this.c | 0;
    const d = this.d | 0;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    const r = (c << 21) | (c >>> 11);
    this.c = (r + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.next32() / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  uint53(): number {
    return (this.next32() >>> 11) * 4294967296 + this.next32();
  }
}

/** A PRNG seeded from the parts, joined unambiguously. */
export function rngFor(...parts: readonly (string | number)[]): Rng {
  return new Sfc32(cyrb128(parts.join("\u0001")));
}
