// The installed command's demo: the steps of package.json's `demo` script, declared once there.
import { join, relative } from "node:path";

/**
 * The demo's steps, read from package.json's `demo` script (declared once there): each
 * `node --import tsx src/cli/<name>.ts ARGS` becomes `<name> ARGS`, its sample files taken from
 * this package wherever the command runs.
 */
export function demoSteps(script: string, packageRoot: string, cwd: string): { command: string; args: string[] }[] {
  return script.split(" && ").map((step) => {
    const m = /^node --import tsx src\/cli\/(\w+)\.ts (.*)$/.exec(step.trim());
    if (!m) throw new Error(`package.json's demo script has a step this command cannot run: ${step}`);
    const args = m[2]!.split(/\s+/).map((a) => (a.startsWith("input/") ? relative(cwd, join(packageRoot, a)) || "." : a));
    return { command: m[1]!, args };
  });
}

