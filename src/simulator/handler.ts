// The gateway in front of the backend, in its order: route → key → rate limit → quota → backend.
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkKey, presentedKey } from "./auth.js";
import type { Backend } from "./backend.js";
import { countStatus, type SimulatorCounters } from "./counters.js";
import { invalidKey, missingKey, quotaExceeded, rateLimited, resourceNotFound, retryAfterSeconds } from "./gateway.js";
import type { SimulatorOptions } from "./options.js";
import { QuotaMeter } from "./quota.js";
import { RetryAfterTracker, SlidingWindowLimiter } from "./rate-limit.js";
import { jsonBuffer, send } from "./respond.js";
import { matchRoute } from "./route.js";

export function createHandler(o: SimulatorOptions, counters: SimulatorCounters, backend: Backend) {
  const notFound = jsonBuffer(resourceNotFound());
  const missing = jsonBuffer(missingKey());
  const invalid = jsonBuffer(invalidKey());
  const limiter = o.rateLimit ? new SlidingWindowLimiter(o.rateLimit, o.rateWindowMs) : null;
  const quota = o.quota !== undefined ? new QuotaMeter(o.quota, o.quotaPeriodMs, o.now()) : null;
  const retryAfter = new RetryAfterTracker();

  return (req: IncomingMessage, res: ServerResponse): void => {
    counters.total++;
    const route = matchRoute(req.method, req.url);
    if (!route) {
      counters.unmatched++;
      return send(res, 404, notFound);
    }
    const { lookup } = route;
    counters.requests[lookup]++;
    // a closed product: the gateway no longer routes its paths, whatever the key
    if (o.closed?.includes(lookup)) {
      countStatus(counters, lookup, 404);
      return send(res, 404, notFound);
    }
    const auth = checkKey(o, lookup, presentedKey(req.headers, route.query));
    if (!auth.ok) {
      counters.unauthorized++;
      countStatus(counters, lookup, 401);
      return send(res, 401, auth.reason === "missing" ? missing : invalid);
    }
    if (limiter || quota) {
      // Limits are per key and per lookup: broadband and mobile are separate products.
      const id = `${lookup}\u0000${auth.key}`;
      const now = o.now();
      if (retryAfter.isEarly(id, now)) counters.earlyRetries++;
      const admitted = limiter?.tryAcquire(id, now) ?? { ok: true };
      if (!admitted.ok) {
        const seconds = retryAfterSeconds(admitted.waitMs);
        retryAfter.given(id, now, seconds);
        counters.throttled++;
        countStatus(counters, lookup, 429);
        return send(res, 429, jsonBuffer(rateLimited(seconds)), { "retry-after": String(seconds) });
      }
      const used = quota?.tryUse(id, now) ?? { ok: true };
      if (!used.ok) {
        counters.quotaExceeded++;
        countStatus(counters, lookup, 403);
        return send(res, 403, jsonBuffer(quotaExceeded(used.replenishInMs)));
      }
    }
    backend.handle(req, res, lookup, route.segment);
  };
}
