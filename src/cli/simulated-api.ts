// --simulate: the CLI, not the pipeline, starts the bundled simulator and hands the batch its address
// and a fresh random key. The pipeline only sees an ApiEndpoint.
import { randomBytes } from "node:crypto";
import { startSimulator } from "../simulator/index.js";
import type { ApiEndpoint } from "../pipeline/batch.js";

export function simulatedApi(providers: readonly string[]): () => Promise<ApiEndpoint> {
  return async () => {
    const key = randomBytes(16).toString("hex");
    const simulator = await startSimulator({ port: 0, providers: [...providers], key, mobileKey: undefined });
    return { baseUrl: new URL(simulator.url), key, description: `the bundled simulator at ${simulator.url}`, close: () => simulator.close() };
  };
}
