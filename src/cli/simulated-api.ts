// --simulate: the CLI, not the pipeline, starts the bundled simulator and hands the batch its address
// and a fresh random key. The pipeline only sees an ApiEndpoint.
import { randomBytes } from "node:crypto";
import { startSimulator, type SimulatorOptions } from "../simulator/index.js";
import type { ApiEndpoint } from "../pipeline/batch.js";

/** `options` are the simulator's own (a release, faults): tests and the demo set them; the key is always fresh. */
export function simulatedApi(providers: readonly string[], options: Partial<SimulatorOptions> = {}): () => Promise<ApiEndpoint> {
  return async () => {
    const key = randomBytes(16).toString("hex");
    const simulator = await startSimulator({ port: 0, providers: [...providers], ...options, key, mobileKey: undefined });
    return { baseUrl: new URL(simulator.url), key, description: `the bundled simulator at ${simulator.url}`, close: () => simulator.close() };
  };
}
