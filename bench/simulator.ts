// Simulator throughput: how many lookups per second it answers on loopback with faults and latency
// off (issue 2 asks for at least 5,000/s), so that other benchmarks measure the client, not it.
// `npx tsx bench/simulator.ts [--seconds N] [--concurrency N] [--in-process]` prints the figure.
import http from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_KEY, generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { API_KEY_HEADER, lookupPath, type Dialect } from "../src/contract/types.js";
import { BENCH_KEY, startSimulatorProcess } from "./lib/simulator-process.js";


export interface ThroughputOptions {
  /** measured seconds, after the warm-up (default 5) */
  seconds?: number;
  /** seconds of requests before measuring: fills the simulator's body cache and warms the JIT (default 1) */
  warmupSeconds?: number;
  /** requests in flight, one keep-alive connection each (default 32) */
  concurrency?: number;
  /**
   * Distinct postcodes cycled through, each asked for both lookups one after the other, as a batch
   * does. The default (100,000) never repeats within a run of a few seconds, so every answer is
   * generated fresh; a few hundred measure answers served from the simulator's body cache.
   */
  postcodes?: number;
  dialect?: Dialect;
  seed?: string;
  /**
   * Run the simulator in this process instead of a child process. The client then shares its one
   * thread, so the figure is roughly halved: useful only to profile the simulator.
   */
  inProcess?: boolean;
}

export interface ThroughputResult {
  /** complete 200 and 404 answers per second over the measured window */
  requestsPerSecond: number;
  requests: number;
  seconds: number;
  concurrency: number;
  /** answers by status over the measured window (faults are off: only 200 and 404 are expected) */
  byStatus: Record<number, number>;
  /** requests that got no complete answer (should be 0) */
  errors: number;
  /** mean response body size, bytes */
  meanBodyBytes: number;
  simulator: "child process" | "in-process";
  /**
   * CPU seconds the simulator process used over the measured window, and the requests it could
   * answer per CPU second: a figure other load on the machine does not drag down. Null in-process
   * (client and server share the process) or where /proc is not available.
   */
  simulatorCpuSeconds: number | null;
  requestsPerCpuSecond: number | null;
  /** CPU seconds this (client) process used over the window: near `seconds`, the client was the limit */
  clientCpuSeconds: number;
}

interface Target {
  url: string;
  /** the key the simulator takes */
  key: string;
  /** CPU seconds used by the simulator so far, or null when it cannot be told apart */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

export async function measureSimulatorThroughput(opts: ThroughputOptions = {}): Promise<ThroughputResult> {
  const seconds = opts.seconds ?? 5;
  const warmupSeconds = opts.warmupSeconds ?? 1;
  const concurrency = opts.concurrency ?? 32;
  const dialect = opts.dialect ?? "live";
  const seed = opts.seed ?? "1";
  if (!(seconds > 0) || !(warmupSeconds >= 0) || !Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError("seconds must be > 0, warmupSeconds >= 0 and concurrency a whole number >= 1");

  const target = opts.inProcess ? await inProcess(dialect, seed) : await childProcess(dialect, seed);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  try {
    const base = new URL(target.url);
    const paths = generatePostcodes(seed, opts.postcodes ?? 100_000).flatMap((p) => [lookupPath("broadband", p), lookupPath("mobile", p)]);
    let next = 0;
    let measuring = false;
    let stopped = false;
    let requests = 0;
    let errors = 0;
    let bytes = 0;
    const byStatus: Record<number, number> = {};

    const worker = async () => {
      while (!stopped) {
        const path = paths[next++ % paths.length]!;
        try {
          const { status, size } = await request(agent, base, path, target.key);
          if (!measuring) continue;
          requests++;
          bytes += size;
          byStatus[status] = (byStatus[status] ?? 0) + 1;
        } catch {
          if (measuring) errors++;
        }
      }
    };
    const workers = Array.from({ length: concurrency }, worker);
    await delay(warmupSeconds * 1000);
    measuring = true;
    const started = performance.now();
    const cpuBefore = target.cpuSeconds();
    const clientBefore = process.cpuUsage();
    await delay(seconds * 1000);
    measuring = false;
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = target.cpuSeconds();
    const client = process.cpuUsage(clientBefore);
    const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    stopped = true;
    await Promise.all(workers);
    // with faults off every answer is 200 or 404; anything else (a key it refuses: 401) would time
    // the simulator's refusals, not its answers
    const others = Object.entries(byStatus).filter(([status]) => status !== "200" && status !== "404");
    if (others.length > 0) throw new Error(`the simulator answered ${others.map(([status, n]) => `${n} requests ${status}`).join(", ")}: not a measure of its answers`);
    return {
      requestsPerSecond: Math.round(requests / elapsed),
      requests,
      seconds: Math.round(elapsed * 100) / 100,
      concurrency,
      byStatus,
      errors,
      meanBodyBytes: requests === 0 ? 0 : Math.round(bytes / requests),
      simulatorCpuSeconds: cpu === null ? null : Math.round(cpu * 100) / 100,
      requestsPerCpuSecond: cpu === null || cpu <= 0 ? null : Math.round(requests / cpu),
      clientCpuSeconds: Math.round((client.user + client.system) / 1e4) / 100,
      simulator: opts.inProcess ? "in-process" : "child process",
    };
  } finally {
    agent.destroy();
    await target.stop();
  }
}

/** One GET, body read and dropped. */
function request(agent: http.Agent, base: URL, path: string, key: string): Promise<{ status: number; size: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path, agent, headers: { [API_KEY_HEADER]: key } },
      (res) => {
        let size = 0;
        res.on("data", (chunk: Buffer) => (size += chunk.length));
        res.on("end", () => (res.complete ? resolve({ status: res.statusCode ?? 0, size }) : reject(new Error("incomplete"))));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function inProcess(dialect: Dialect, seed: string): Promise<Target> {
  const sim = await startSimulator({ port: 0, dialect, seed });
  return { url: sim.url, key: DEFAULT_KEY, cpuSeconds: () => null, stop: () => sim.close() };
}

/** The simulator in a child process of its own (bench/lib/simulator-process.ts). */
async function childProcess(dialect: Dialect, seed: string): Promise<Target> {
  const sim = await startSimulatorProcess({ dialect, seed });
  return { url: sim.url, key: BENCH_KEY, cpuSeconds: sim.cpuSeconds, stop: sim.stop };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "5" },
      concurrency: { type: "string", default: "32" },
      "in-process": { type: "boolean", default: false },
      dialect: { type: "string", default: "live" },
    },
  });
  const dialect = values.dialect === "spec" ? "spec" : "live";
  const common = { seconds: Number(values.seconds), concurrency: Number(values.concurrency), inProcess: values["in-process"], dialect } as const;
  let errors = 0;
  for (const [label, postcodes] of [
    ["fresh answers (no postcode asked twice)", 100_000],
    ["cached answers (500 postcodes over and over)", 500],
  ] as const) {
    const r = await measureSimulatorThroughput({ ...common, postcodes });
    errors += r.errors;
    console.log(
      `simulator, ${label}: ${r.requestsPerSecond} requests/s ` +
        `(${r.simulator}, ${dialect} dialect, ${r.requests} requests in ${r.seconds} s, concurrency ${r.concurrency}, ` +
        `mean body ${r.meanBodyBytes} bytes, statuses ${JSON.stringify(r.byStatus)}, errors ${r.errors})` +
        (r.requestsPerCpuSecond === null ? "" : `; the simulator used ${r.simulatorCpuSeconds} CPU s (${r.requestsPerCpuSecond} requests per CPU second), the client ${r.clientCpuSeconds}`),
    );
  }
  if (errors > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(`bench/simulator: ${(err as Error).message}`);
    process.exitCode = 1;
  });
}
