// What a run has opened is closed last first, whatever fails on the way: only what was opened.
import { describe, expect, it } from "vitest";
import { RunResources } from "../src/pipeline/run-resources.js";

describe("RunResources", () => {
  it("closes what was opened, last opened first; a close that fails is reported and the rest still close", async () => {
    const resources = new RunResources();
    const closed: string[] = [];
    resources.add(() => void closed.push("store"));
    resources.add(async () => {
      closed.push("keeper");
      throw new Error("keeper would not stop");
    });
    resources.add(async () => void closed.push("api"));
    const errors: string[] = [];
    await resources.closeAll((err) => errors.push((err as Error).message));
    expect(closed).toEqual(["api", "keeper", "store"]);
    expect(errors).toEqual(["keeper would not stop"]);
    // closed once: a second call closes nothing again
    await resources.closeAll((err) => errors.push((err as Error).message));
    expect(closed).toEqual(["api", "keeper", "store"]);
  });

  it("with nothing opened, closes nothing", async () => {
    const errors: unknown[] = [];
    await new RunResources().closeAll((err) => errors.push(err));
    expect(errors).toEqual([]);
  });
});
