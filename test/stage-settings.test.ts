// The pipeline's stages say what they read: each takes a named slice of the batch's settings
// (`Pick<BatchConfig, ...>`), and only the run's opening (runBatch, openRun) holds the whole config.
// Read from the code itself (parsed, not run): a stage that takes the config, or reaches it through
// the opened run, fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const PIPELINE = fileURLToPath(new URL("../src/pipeline", import.meta.url));
/** Where the whole config is declared and taken: the declaration, and the run's opening that hands each stage its slice. */
const HOLDERS = new Set(["config.ts", "batch.ts", "open-stage.ts"]);
const WHOLE = new Set(["BatchConfig", "BatchSettings"]);

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(PIPELINE, file), "utf8"), ts.ScriptTarget.ES2022, true);
}

/** Where a file names the whole config other than as the source of a slice, or reads a `config` off something. */
function wholeConfigUses(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && WHOLE.has(node.typeName.text) && !isSliceSource(node))
      at(node, `takes the whole ${node.typeName.text}`);
    if (ts.isPropertyAccessExpression(node) && node.name.text === "config") at(node, "reads .config");
    if (ts.isBindingElement(node) && (node.propertyName ?? node.name).getText(source) === "config" && ts.isObjectBindingPattern(node.parent))
      at(node, "takes { config } apart");
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.name.getText(source) === "config") at(node, "carries a config");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `Pick<BatchConfig, ...>` and `BatchConfig["keys"]`: a slice, or one field's type, named from the one declaration. */
function isSliceSource(node: ts.TypeReferenceNode): boolean {
  const parent = node.parent;
  if (ts.isIndexedAccessTypeNode(parent) && parent.objectType === node) return true;
  return ts.isTypeReferenceNode(parent) && ts.isIdentifier(parent.typeName) && parent.typeName.text === "Pick" && parent.typeArguments?.[0] === node;
}

const stageFiles = readdirSync(PIPELINE).filter((f) => f.endsWith(".ts") && !HOLDERS.has(f));

describe("stages take what they need", () => {
  it("the rule sees the whole config, and a run carrying it, where they appear", () => {
    const sample = ts.createSourceFile(
      "sample.ts",
      "interface R { config: BatchConfig }\nfunction f(run: R, s: Pick<BatchConfig, 'db'>, k: BatchConfig['keys']) { const { config } = run; return run.config.db + config.db; }\nfunction g(c: BatchSettings) {}",
      ts.ScriptTarget.ES2022,
      true,
    );
    expect(wholeConfigUses(sample)).toEqual([
      "sample.ts:1 carries a config",
      "sample.ts:1 takes the whole BatchConfig",
      "sample.ts:2 takes { config } apart",
      "sample.ts:2 reads .config",
      "sample.ts:3 takes the whole BatchSettings",
    ]);
    // the opening does take it
    expect(wholeConfigUses(parse("batch.ts")).length).toBeGreaterThan(0);
  });

  it("no stage, and not the opened run, takes or reaches the whole config", () => {
    expect(stageFiles).toEqual(expect.arrayContaining(["run.ts", "fetch-stage.ts", "plan-stage.ts", "finish-stage.ts", "report-stage.ts", "run-record.ts"]));
    expect(stageFiles.flatMap((f) => wholeConfigUses(parse(f)))).toEqual([]);
  });
});
