// The tests' child processes run the tree compiled for this run (compiled-tree-build.ts says why).
import { join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "./compiled-tree-build.js";

export { ROOT };

declare module "vitest" {
  export interface ProvidedContext {
    /** the compiled tree's root, or null when it could not be built (children then start through tsx) */
    compiledTree?: string | null;
  }
}

/**
 * The node arguments that run a TypeScript file of the repository (a path from its root, such as
 * `src/cli/batch.ts`): its compiled copy when this run built one, else through tsx (`--import tsx`
 * keeps it one process, so kill -9 and signals reach the program itself).
 */
export function scriptArgs(file: string): string[] {
  const tree = inject("compiledTree");
  if (!tree) return ["--import", "tsx", file];
  return [join(tree, file.replace(/\.ts$/, ".js"))];
}
