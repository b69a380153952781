// Generated bodies per (lookup, postcode), bounded by total size: generating and serialising is the
// expensive part of a request, and a batch asks for each postcode at least twice.

export class BodyCache {
  // Map keeps insertion order: re-inserting on a hit makes the first entry the least recently used.
  private readonly entries = new Map<string, Buffer | null>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): Buffer | null | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  /** null marks an unknown postcode (a 404), which is worth caching too. */
  set(key: string, body: Buffer | null): void {
    const size = (body?.length ?? 0) + key.length + 64;
    if (size > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= (old?.length ?? 0) + key.length + 64;
      this.entries.delete(key);
    }
    this.entries.set(key, body);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= (v?.length ?? 0) + k.length + 64;
    }
  }
}
