// The repository's TypeScript compiled once per `vitest run` (test/global-setup.ts; compiled-tree.ts
// hands it to the tests), so that the tests' child processes start as plain node: through tsx each
// start cost about a second more of CPU, and the suite starts a couple of hundred. esbuild turns each file into JavaScript on its own (the
// project compiles with verbatimModuleSyntax, so a file alone says what it imports) in about a second
// for the whole tree; the folders keep their places beside links to node_modules, docs and
// package.json, so paths the code takes from import.meta.url still land.
import { chmodSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What is compiled: the program, the soak's crash writer and the tests' own child scripts. */
const COMPILED_FOLDERS = ["src", "soak", "test/helpers"];
/** What the compiled code reads beside itself, linked as is. */
const LINKED = ["node_modules", "docs", "input", "package.json"];

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? typescriptFiles(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

/** Compiles the tree into a new temporary folder (the run's, which global-setup.ts removes); returns it. */
export async function buildCompiledTree(): Promise<string> {
  const { build } = await import("esbuild");
  const root = mkdtempSync(join(tmpdir(), "pcc-compiled-"));
  // readable by all: a test runs the batch as another user
  chmodSync(root, 0o755);
  try {
    const entryPoints = COMPILED_FOLDERS.flatMap((f) => typescriptFiles(join(ROOT, f)));
    await build({ entryPoints, outdir: root, outbase: ROOT, format: "esm", platform: "node", target: "node20", bundle: false, logLevel: "silent" });
    for (const name of LINKED) symlinkSync(join(ROOT, name), join(root, name));
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return root;
}

