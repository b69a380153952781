// The coverage service behind the gateway: bodies from the dataset, plus injected faults.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Lookup } from "../contract/fields.js";
import { BodyCache } from "./body-cache.js";
import { generalErrorBody, notFoundBody, okBodyBytes } from "./bodies.js";
import type { SimulatorCounters } from "./counters.js";
import { countStatus } from "./counters.js";
import { generateCompact, type SimPostcode } from "./data.js";
import { decideFault, faultsEnabled } from "./faults.js";
import { malformBody } from "./malformed.js";
import type { SimulatorOptions } from "./options.js";
import { compactPostcode } from "../contract/postcode.js";
import { jsonBuffer, send, sendPartial } from "./respond.js";
import { decodeSegment } from "./route.js";

/** Enough for the lookups of one postcode to be served from one generation at any concurrency. */
const RECENT_POSTCODES = 4096;

export class Backend {
  private readonly seed: string;
  private readonly cache: BodyCache;
  private readonly faulty: boolean;
  /** backend requests so far per (lookup, postcode): the n of fault decisions */
  private readonly seen = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly errorBody: Buffer;
  /**
   * Postcodes generated lately, so the other lookup of the same postcode (a client asks for both,
   * close together) reuses the addresses instead of generating them again.
   */
  private readonly recent = new Map<string, SimPostcode | null>();

  constructor(
    private readonly o: SimulatorOptions,
    private readonly counters: SimulatorCounters,
  ) {
    this.seed = String(o.seed);
    this.cache = new BodyCache(o.maxCacheBytes);
    this.faulty = faultsEnabled(o);
    this.errorBody = jsonBuffer(generalErrorBody(o.dialect));
  }

  handle(_req: IncomingMessage, res: ServerResponse, lookup: Lookup, segment: string): void {
    const sent = decodeSegment(segment);
    const compact = compactPostcode(sent);
    const found = compact === null ? null : this.okBody(lookup, compact);
    const status = found ? 200 : 404;
    const body = found ?? jsonBuffer(notFoundBody(this.o.dialect, sent));
    if (!this.faulty) return this.reply(res, lookup, status, body);

    const postcode = compact ?? sent;
    const seqKey = `${lookup}\u0000${postcode}`;
    const n = this.seen.get(seqKey) ?? 0;
    this.seen.set(seqKey, n + 1);
    const d = decideFault(this.seed, this.o, lookup, postcode, n);
    if (d.fault === "stall") {
      this.counters.stalls++; // never answered; close() destroys the socket
      return;
    }
    if (d.delayMs > 0) {
      this.counters.delayed++;
      this.counters.delayedMs += d.delayMs;
    }
    this.after(d.delayMs, () => {
      if (res.destroyed) return; // the caller gave up meanwhile
      switch (d.fault) {
        case "reset":
          this.counters.resets++;
          return sendPartial(res, status, body);
        case "unavailable":
          this.counters.unavailable++;
          return this.reply(res, lookup, 503, null);
        case "fail":
          this.counters.failures++;
          return this.reply(res, lookup, 500, this.errorBody);
        case "malformed": {
          this.counters.malformed++;
          const kinds = this.counters.malformedByKind;
          kinds[d.malformed] = (kinds[d.malformed] ?? 0) + 1;
          const value = found ? () => JSON.parse(found.toString("utf8")) as unknown : null;
          return this.reply(res, lookup, status, malformBody(d.malformed, body, value, lookup, this.o.providers, d.rng));
        }
        default:
          return this.reply(res, lookup, status, body);
      }
    });
  }

  /** Cancels pending delayed answers (their sockets are destroyed by the server). */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private okBody(lookup: Lookup, compact: string): Buffer | null {
    const key = `${lookup}\u0000${compact}`;
    let body = this.cache.get(key);
    if (body === undefined) {
      const data = this.dataFor(compact);
      body = data ? okBodyBytes(lookup, this.o.dialect, data, this.o.providers) : null;
      this.cache.set(key, body);
    }
    return body;
  }

  private dataFor(compact: string): SimPostcode | null {
    let data = this.recent.get(compact);
    if (data === undefined) {
      data = generateCompact(this.seed, compact, this.o.providers, this.o.release, this.o.mobileScale);
      this.recent.set(compact, data);
      if (this.recent.size > RECENT_POSTCODES) this.recent.delete(this.recent.keys().next().value!);
    } else {
      this.recent.delete(compact); // both lookups have it now
    }
    return data;
  }

  private reply(res: ServerResponse, lookup: Lookup, status: number, body: Buffer | null): void {
    countStatus(this.counters, lookup, status);
    send(res, status, body);
  }

  private after(ms: number, fn: () => void): void {
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }
}
