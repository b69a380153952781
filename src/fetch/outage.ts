// Telling a fault of the API as a whole from faults of some postcodes. Fed every attempt of one
// lookup; says whether the API is healthy, in an outage (pause, probe one request at a time), or
// unreachable from the start (a wrong --base-url: stop at once). Pure but for its own state.

/** How one attempt failed, for comparing attempts: null for an answer about the postcode itself. */
export interface FailureSignature {
  /** "refused", "dns", "tls", "timeout", "reset", "HTTP 503", "HTTP 429", ... */
  what: string;
  /** what attempts must share to count as the same failure: "network" for every transport failure
   *  (a server going down resets some connections and refuses the next), else the HTTP status */
  group: string;
  /** refused/dns/tls/3xx: before any success these mean the address is wrong */
  wrongAddress: boolean;
  throttled: boolean;
}

export type Health = { kind: "healthy" } | { kind: "outage"; since: number; what: string } | { kind: "unreachable"; message: string };

export interface OutageOptions {
  /** consecutive attempts failing the same way that make an outage */
  sameFailures: number;
  /** consecutive 429s that make an outage */
  throttles: number;
  /** how many different postcodes those attempts must span: fewer is a fault of those postcodes */
  postcodes: number;
  /** wrong-address failures before any success that make the address wrong */
  unreachable: number;
  /** where the requests go, for the message */
  url: string;
}

export const DEFAULT_OUTAGE_THRESHOLDS = { sameFailures: 6, throttles: 20, postcodes: 3, unreachable: 3 } as const;

export class OutageMonitor {
  private successes = 0;
  /** `wrongAddress`: every failure of the streak said so; `what`: its latest */
  private streak: { group: string; count: number; postcodes: Set<string>; since: number; wrongAddress: boolean; what: string } | null = null;
  /** each recognised outage's run-up: from the streak's first failure to its recognition */
  private readonly runUps: { from: number; to: number }[] = [];
  private state: Health = { kind: "healthy" };
  private failing: number | null = null;

  constructor(private readonly options: OutageOptions) {}

  /** When the attempts started failing without a success between (any failure, one postcode's included); null while they succeed. */
  get failingSince(): number | null {
    return this.failing;
  }

  get health(): Health {
    return this.state;
  }

  /** One attempt's result: `failure` null for any answer about the postcode (ok, not found, a bad body). */
  record(postcode: string, failure: FailureSignature | null, now: number): Health {
    if (failure === null) {
      this.failing = null;
      this.successes++;
      this.streak = null;
      this.state = { kind: "healthy" };
      return this.state;
    }
    this.failing ??= now;
    if (this.state.kind !== "healthy") return this.state;
    if (this.streak?.group === failure.group) {
      this.streak.count++;
      this.streak.postcodes.add(postcode);
      this.streak.wrongAddress &&= failure.wrongAddress;
      this.streak.what = failure.what;
    } else this.streak = { group: failure.group, count: 1, postcodes: new Set([postcode]), since: now, wrongAddress: failure.wrongAddress, what: failure.what };

    if (this.successes === 0 && failure.wrongAddress && this.streak.count >= this.options.unreachable) return this.unreachable(failure.what);
    const needed = failure.throttled ? this.options.throttles : this.options.sameFailures;
    if (this.streak.count >= needed && this.streak.postcodes.size >= this.options.postcodes) {
      this.state = { kind: "outage", since: now, what: failure.what };
      this.runUps.push({ from: this.streak.since, to: now });
      if (this.runUps.length > 16) this.runUps.shift();
    }
    return this.state;
  }

  /**
   * Whether a network failure is not yet judged: the API is not (yet) in an outage but the attempts
   * are failing on the network without enough of them to say whether it is one.
   */
  unjudged(failure: FailureSignature | null): boolean {
    if (failure?.group !== "network" || this.state.kind !== "healthy" || this.streak?.group !== "network") return false;
    return this.streak.count < this.options.sameFailures;
  }

  /**
   * The health once no attempt is left to judge the failures by (the list is done, nothing in
   * flight): before any success, a streak of nothing but wrong-address failures is an unreachable
   * API, however short.
   */
  settleQuiet(): Health {
    if (this.state.kind === "healthy" && this.successes === 0 && this.streak?.wrongAddress === true) return this.unreachable(this.streak.what);
    return this.state;
  }

  private unreachable(what: string): Health {
    this.state = { kind: "unreachable", message: `${what} from ${this.options.url} on every attempt so far: check --base-url` };
    return this.state;
  }

  /** Whether a retry spent at `at` fell in a recognised outage's run-up (so it is given back). */
  inRunUp(at: number): boolean {
    return this.runUps.some((w) => at >= w.from && at <= w.to);
  }
}

/**
 * One postcode's retries spent on network failures, kept so that those an outage's run-up took
 * (before it was recognised) are given back.
 */
export class NetworkRetries {
  private spentAt: number[] = [];

  /** One retry spent: kept with its time when a network failure spent it, to give back if an outage's run-up took it. */
  spend(failure: FailureSignature | null, state: { retriesUsed: number }, at: number): void {
    state.retriesUsed++;
    if (failure?.group === "network") this.spentAt.push(at);
  }

  /** How many retries to give back now; each is given back once. */
  refund(monitor: OutageMonitor): number {
    const kept = this.spentAt.filter((at) => !monitor.inRunUp(at));
    const back = this.spentAt.length - kept.length;
    this.spentAt = kept;
    return back;
  }
}
