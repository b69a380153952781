// Why fetching stops early. The first fatal reason wins; scheduling stops for everything
// (or, for quota, just the lookup whose product ran out).
import { setMaxListeners } from "node:events";
import type { Lookup } from "../contract/fields.js";

export type StopReason =
  /**
   * the API refused the lookup's key (401, or a 403 that is not the quota's). `lookupOnly`: the
   * product answered before, so the lookup stops alone and another product's key may still be
   * accepted; every lookup refusing makes it the run's stop.
   */
  | { kind: "auth"; lookup: Lookup; message: string; lookupOnly?: true }
  /** `lookups`: every lookup it was seen on, when more than one */
  | { kind: "misconfigured"; lookup: Lookup; message: string; lookups?: readonly Lookup[] }
  /** `periodTurned`: the run's plan was made under a period that ended while it ran (--max-requests kept it from planning again) */
  | { kind: "quota"; lookup: Lookup; message: string; periodTurned?: true }
  /**
   * the lookup's product appears closed: the gateway's own signals, its 404 or a 410, where it
   * answered before (a refused key is `auth`, never a closure). `firstRequests`: the gateway's 404
   * (not a 410) before the lookup answered in this run: a product closing, or a wrong base path if
   * every lookup meets it so.
   */
  | { kind: "closed"; lookup: Lookup; message: string; firstRequests?: true }
  | { kind: "max_requests"; limit: number }
  /** refused, DNS, TLS or a redirect before any success: the address is wrong */
  | { kind: "unreachable"; lookup: Lookup; message: string }
  /** the API stayed down longer than --outage-limit */
  | { kind: "outage"; lookup: Lookup; message: string }
  | { kind: "signal"; signal: "SIGINT" | "SIGTERM" | "SIGHUP" }
  /** the run's lease expired or was taken over: another batch owns its work now */
  | { kind: "lease_lost"; message: string };

export class StopControl {
  private readonly all = new AbortController();
  private readonly perLookup = new Map<Lookup, AbortController>();
  /** Aborts requests already in flight: only for a second signal or a rejected key. */
  private readonly hard = new AbortController();
  readonly reasons: StopReason[] = [];

  /** onReason: told of each new reason as it is recorded (the log says why a run stops when it stops) */
  constructor(private readonly onReason: (reason: StopReason) => void = () => {}) {
    // Every request in flight listens on the in-flight signal: --concurrency 16 is 32 listeners, not a leak.
    setMaxListeners(0, this.hard.signal, this.all.signal);
  }

  signalFor(lookup: Lookup): AbortSignal {
    let c = this.perLookup.get(lookup);
    if (!c) {
      c = new AbortController();
      // every worker of the lookup waits on it (pacer, backoff)
      setMaxListeners(0, c.signal);
      this.perLookup.set(lookup, c);
      if (this.all.signal.aborted) c.abort();
    }
    return c.signal;
  }

  get inFlightSignal(): AbortSignal {
    return this.hard.signal;
  }

  get stopped(): boolean {
    return this.all.signal.aborted;
  }

  /** Aborts when everything stops (not for one lookup's quota): for work outside the fetch loop. */
  get stopAllSignal(): AbortSignal {
    return this.all.signal;
  }

  stopLookup(reason: StopReason & { kind: "quota" | "outage" | "closed" | "auth" }): void {
    if (this.everyLookupRefusesItsKey(reason)) return this.stopAll({ kind: "auth", lookup: reason.lookup, message: reason.message });
    const wrongPath = this.everyLookupClosedAtOnce(reason);
    if (wrongPath) return this.stopAll(wrongPath);
    this.record(reason);
    this.signalFor(reason.lookup);
    this.perLookup.get(reason.lookup)!.abort();
  }

  stopAll(reason: StopReason): void {
    this.record(reason);
    this.abortScheduling();
    // A rejected key will be rejected again: in-flight answers are worthless.
    // A lost lease: another batch owns the work, so answers in flight could not be committed anyway.
    if (reason.kind === "auth" || reason.kind === "misconfigured" || reason.kind === "unreachable" || reason.kind === "lease_lost") this.hard.abort();
  }

  /**
   * One product refusing a key that worked stops that lookup alone (its key renewed or revoked, or
   * the product gone); every product refusing its key stops the run, as for any rejected key.
   */
  private everyLookupRefusesItsKey(reason: StopReason): boolean {
    if (reason.kind !== "auth" || !reason.lookupOnly) return false;
    const refused = (l: Lookup) => l === reason.lookup || this.reasons.some((r) => r.kind === "auth" && r.lookup === l);
    if (![...this.perLookup.keys()].every(refused)) return false;
    this.reasons.splice(0, this.reasons.length, ...this.reasons.filter((r) => !(r.kind === "auth" && r.lookupOnly)));
    return true;
  }

  /**
   * Every product of the run (two or more) meeting the gateway's 404 on its first requests, none
   * with a 410, is one wrong base path, not every product closing the same night: the run stops as
   * misconfigured, as for a base URL that never answered.
   */
  private everyLookupClosedAtOnce(reason: StopReason): (StopReason & { kind: "misconfigured" }) | null {
    if (reason.kind !== "closed" || !reason.firstRequests) return null;
    const lookups = [...this.perLookup.keys()];
    const first = (l: Lookup) => l === reason.lookup || this.reasons.some((r) => r.kind === "closed" && r.firstRequests && r.lookup === l);
    if (lookups.length < 2 || !lookups.every(first)) return null;
    this.reasons.splice(0, this.reasons.length, ...this.reasons.filter((r) => !(r.kind === "closed" && r.firstRequests)));
    const message = `every lookup met the gateway's 404 on its first requests (${reason.message}): check the base URL; a product that closes stops alone or answers 410`;
    return { kind: "misconfigured", lookup: reason.lookup, message, lookups };
  }

  /** Every request in flight may answer the same (four 403s, four 401s): one reason of each kind per lookup. */
  private record(reason: StopReason): void {
    const lookupOf = (r: StopReason) => ("lookup" in r ? r.lookup : null);
    // once the lease is lost, what else stops the workers (a quota gate closed with it) is its consequence
    if (this.reasons.some((r) => r.kind === "lease_lost")) return;
    if (this.reasons.some((r) => r.kind === reason.kind && lookupOf(r) === lookupOf(reason))) return;
    this.reasons.push(reason);
    this.onReason(reason);
  }

  /** An unexpected error: stop scheduling and abandon requests in flight, with no reason of its own. */
  halt(): void {
    this.abortScheduling();
    this.hard.abort();
  }

  private abortScheduling(): void {
    this.all.abort();
    for (const c of this.perLookup.values()) c.abort();
  }

  /** A second Ctrl-C: stop waiting for in-flight requests. */
  abortInFlight(): void {
    this.hard.abort();
  }
}
