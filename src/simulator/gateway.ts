// The API gateway's own answers (not the backend's): unknown paths, keys, rate limit, quota.
// Bodies as captured from the production gateway, the same in both dialects.
import type { GatewayBody } from "../contract/types.js";

export const MISSING_KEY_MESSAGE =
  "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.";
export const INVALID_KEY_MESSAGE =
  "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.";

export const resourceNotFound = (): GatewayBody => ({ statusCode: 404, message: "Resource not found" });
export const missingKey = (): GatewayBody => ({ statusCode: 401, message: MISSING_KEY_MESSAGE });
export const invalidKey = (): GatewayBody => ({ statusCode: 401, message: INVALID_KEY_MESSAGE });

export const rateLimited = (retryAfterSeconds: number): GatewayBody => ({
  statusCode: 429,
  message: `Rate limit is exceeded. Try again in ${retryAfterSeconds} seconds.`,
});

export const quotaExceeded = (replenishInMs: number): GatewayBody => ({
  statusCode: 403,
  message: `Out of call volume quota. Quota will be replenished in ${formatHms(replenishInMs)}.`,
});

/** HH:MM:SS, rounded up to the second; hours may exceed 99 for a monthly quota. */
export function formatHms(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}`;
}

/** Retry-After in whole seconds: ceil of the wait, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
