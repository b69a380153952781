// Starting and stopping the simulator's HTTP server.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Backend } from "./backend.js";
import { createCounters, resetCounters, type SimulatorCounters } from "./counters.js";
import { createHandler } from "./handler.js";
import { resolveOptions, type SimulatorOptions } from "./options.js";

export interface Simulator {
  /** base URL without a trailing slash, e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  /** live counters; resetCounters() zeroes this same object */
  counters: SimulatorCounters;
  resetCounters(): void;
  /** Stops listening and destroys every connection, stalled ones included. */
  close(): Promise<void>;
}

export async function startSimulator(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  const o = resolveOptions(options);
  const counters = createCounters();
  const backend = new Backend(o, counters);
  // requestTimeout 0: a stalled request stays stalled until the client gives up or close() runs.
  const server = http.createServer({ requestTimeout: 0, keepAliveTimeout: 5_000 }, createHandler(o, counters, backend));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    counters,
    resetCounters: () => resetCounters(counters),
    close() {
      closing ??= new Promise<void>((resolve) => {
        backend.dispose();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
