// Simulator options, their defaults and their checks.
import { DEFAULT_PROVIDERS, PROVIDER_CODE } from "../contract/fields.js";
import type { Dialect } from "../contract/types.js";
import { MOBILE_SCALES, type MobileScale } from "../contract/mobile-scales.js";
import { DEFAULT_SIM_SCALE } from "./data.js";
import type { Lookup } from "../contract/fields.js";
import { validateFaultRates, type FaultRates } from "./faults.js";
import { DEFAULT_QUOTA_PERIOD_MS } from "./quota.js";
import { checkRelease } from "./releases.js";

export interface SimulatorOptions extends FaultRates {
  /** 0 = ephemeral */
  port: number;
  host: string;
  seed: number | string;
  dialect: Dialect;
  /** required key (both lookups, or broadband only when mobileKey is set) */
  key: string;
  mobileKey?: string | undefined;
  providers: readonly string[];
  /** requests per window per key and lookup; undefined or 0 = no limit */
  rateLimit?: number | undefined;
  rateWindowMs: number;
  /** requests per quota period per key and lookup; undefined = no quota */
  quota?: number | undefined;
  quotaPeriodMs: number;
  /** clock for rate limit, quota and Retry-After bookkeeping (not for latency) */
  now: () => number;
  /** dataset release served (1 = base; see releases.ts) */
  release: number;
  /** the mobile rating scale served: current (0/3/4, as the service runs today) or legacy (0-4) */
  mobileScale: MobileScale;
  /** fault mode: products that have closed; the gateway answers every path of theirs 404 (its own body) */
  closed?: readonly Lookup[] | undefined;
  /** upper bound of the generated-body cache */
  maxCacheBytes: number;
}

/** A key of a real key's length (32), so the batch's key check takes it as it would a real one. */
export const DEFAULT_KEY = "demo-key-for-the-local-simulator";

export const DEFAULT_OPTIONS: Readonly<SimulatorOptions> = {
  port: 0,
  host: "127.0.0.1",
  seed: 1,
  dialect: "live",
  key: DEFAULT_KEY,
  providers: DEFAULT_PROVIDERS,
  rateWindowMs: 60_000,
  quotaPeriodMs: DEFAULT_QUOTA_PERIOD_MS,
  now: Date.now,
  maxCacheBytes: 64 * 1024 * 1024,
  release: 1,
  mobileScale: DEFAULT_SIM_SCALE,
  failRate: 0,
  unavailableRate: 0,
  stallRate: 0,
  resetRate: 0,
  malformedRate: 0,
  latencyMs: 0,
  jitterMs: 0,
};

/** Defaults for every option left out or given as undefined; throws RangeError on a bad value. */
export function resolveOptions(given: Partial<SimulatorOptions>): SimulatorOptions {
  const o = { ...DEFAULT_OPTIONS } as SimulatorOptions;
  for (const [k, v] of Object.entries(given)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  if (o.dialect !== "spec" && o.dialect !== "live") throw new RangeError(`dialect must be "spec" or "live", got "${String(o.dialect)}"`);
  if (!o.key) throw new RangeError("key must not be empty");
  if (o.mobileKey === "") throw new RangeError("mobileKey must not be empty");
  if (o.providers.length === 0 || !o.providers.every((p) => PROVIDER_CODE.test(p)))
    throw new RangeError("providers must be one or more provider codes (letters and digits, starting with a letter)");
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new RangeError(`port must be 0..65535, got ${o.port}`);
  if (o.rateLimit !== undefined && (!Number.isInteger(o.rateLimit) || o.rateLimit < 0))
    throw new RangeError(`rateLimit must be a whole number >= 0, got ${o.rateLimit}`);
  if (o.quota !== undefined && (!Number.isInteger(o.quota) || o.quota < 0)) throw new RangeError(`quota must be a whole number >= 0, got ${o.quota}`);
  checkRelease(o.release);
  if (!(MOBILE_SCALES as readonly string[]).includes(o.mobileScale)) throw new RangeError(`mobileScale must be ${MOBILE_SCALES.join(" or ")}, got "${String(o.mobileScale)}"`);
  validateFaultRates(o);
  return o;
}
