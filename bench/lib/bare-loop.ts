// The yardstick of the overhead scenario: the same HTTP client (createHttpClient) with the same
// sockets, timeout and per-lookup pools as the batch, fetching and JSON-parsing the same URLs, and
// doing nothing else: no validation, no pacing, no retries, no storage.
import { performance } from "node:perf_hooks";
import pLimit from "p-limit";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/pipeline/batch.js";
import { createHttpClient } from "../../src/fetch/http-client.js";
import { BENCH_KEY } from "./simulator-process.js";
import type { Lookup } from "../../src/contract/fields.js";
import { API_KEY_HEADER, lookupPath } from "../../src/contract/types.js";

export interface BareLoopOptions {
  baseUrl: string;
  /** compact postcodes, as the batch sends them */
  postcodes: readonly string[];
  lookups: readonly Lookup[];
  /** requests in flight per lookup, as the batch's --concurrency */
  concurrency: number;
  timeoutMs: number;
}

export interface BareLoopResult {
  seconds: number;
  cpuSeconds: number;
  eventLoopUtilization: number;
  requests: number;
  /** answers other than 200 and 404, or network errors: should be 0 */
  errors: number;
}

export async function runBareLoop(o: BareLoopOptions): Promise<BareLoopResult> {
  // Sized as the batch sizes it: one socket per request in flight, both lookups sharing the client.
  const http = createHttpClient({ maxSockets: o.concurrency * o.lookups.length, timeoutMs: o.timeoutMs, maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
  const headers = { [API_KEY_HEADER]: BENCH_KEY };
  const base = o.baseUrl.replace(/\/+$/, "");
  let requests = 0;
  let errors = 0;
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  try {
    await Promise.all(
      o.lookups.map((lookup) => {
        const limit = pLimit(o.concurrency);
        return Promise.all(
          o.postcodes.map((postcode) =>
            limit(async () => {
              requests++;
              try {
                const res = await http.get(new URL(base + lookupPath(lookup, postcode)), headers);
                JSON.parse(res.body);
                if (res.status !== 200 && res.status !== 404) errors++;
              } catch {
                errors++;
              }
            }),
          ),
        );
      }),
    );
  } finally {
    http.close();
  }
  const used = process.cpuUsage(cpu);
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    eventLoopUtilization: performance.eventLoopUtilization(elu).utilization,
    requests,
    errors,
  };
}
