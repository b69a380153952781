// What a team-mode test starts (stores, simulators, child batches), closed or killed after each
// test, so a machine a failed test left running (or stopped) never outlives it.
import { afterEach } from "vitest";
import { startSimulator, type Simulator } from "../../src/simulator/index.js";
import type { Store } from "../../src/store/store.js";
import type { ChildRun } from "./child-cli.js";

export function teamResources(key: string) {
  const closing: (Store | Simulator)[] = [];
  const children: ChildRun[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await Promise.all(closing.splice(0).map((c) => c.close()));
  });
  const simulator = async (options: Parameters<typeof startSimulator>[0]) => {
    const sim = await startSimulator({ port: 0, key, ...options });
    closing.push(sim);
    return sim;
  };
  return { closing, children, simulator };
}
