// package.json's `dependencies` are exactly the packages the installed command loads at run time:
// the modules of src/ as `npm run build` compiles them (tsconfig.build.json), less `import type`,
// which the compiler drops (verbatimModuleSyntax). What only the checkout uses (tsx, the bench's
// p-limit, the tests' tools) is a devDependency, so `npm install` of the package leaves it out.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/child-cli.js";

/** The package a bare specifier names (`csv-parse/sync` → csv-parse, `@duckdb/node-api/x` → @duckdb/node-api); null for a path or a Node built-in. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return null;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  return builtinModules.includes(name) ? null : name;
}

/** The literal start of a module name: a string, or a template's text before its first `${`. */
function literalStart(node: ts.Node | undefined): string | null {
  if (!node) return null;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text;
  return null;
}

/** Every module a source file loads at run time: import and export-from (not type-only), import(), require(), require.resolve(). */
function runtimeSpecifiers(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) found.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) found.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === "require") ||
        (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "require" && callee.name.text === "resolve");
      const name = loads ? literalStart(node.arguments[0]) : null;
      if (name !== null) found.push(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true));
  return found;
}

/** The .ts files `npm run build` compiles: tsconfig.build.json's include. */
function builtSources(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error("tsconfig.build.json did not parse");
  return config.fileNames;
}

function packagesLoaded(files: string[]): string[] {
  const names = files.flatMap((f) => runtimeSpecifiers(f, readFileSync(f, "utf8")).map(packageOf));
  return [...new Set(names.filter((n): n is string => n !== null))].sort();
}

describe("the package's dependencies", () => {
  it("reads the run-time loads the build keeps and leaves out those it drops", () => {
    const text = [
      `import a from "pkg-a";`,
      `import type { B } from "pkg-b";`,
      `import { type C } from "pkg-c";`,
      `export { d } from "@scope/pkg-d/sub";`,
      `export type { E } from "pkg-e";`,
      `type F = typeof import("pkg-f");`,
      `const g = await import("pkg-g");`,
      `const h = require("pkg-h");`,
      `const i = require.resolve(\`pkg-i/countries-\${n}.json\`);`,
      `import { readFileSync } from "node:fs";`,
      `import path from "path";`,
      `import x from "./local.js";`,
    ].join("\n");
    const names = runtimeSpecifiers("x.ts", text).map(packageOf).filter((n) => n !== null);
    expect(names).toEqual(["pkg-a", "pkg-c", "@scope/pkg-d", "pkg-g", "pkg-h", "pkg-i"]);
  });

  it("are exactly what the compiled command loads; tsx and the bench's p-limit are not among them", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const files = builtSources();
    expect(files.length).toBeGreaterThan(50);
    expect(files.every((f) => f.startsWith(join(ROOT, "src")))).toBe(true);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(packagesLoaded(files));
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(["tsx", "p-limit"]));
    // and src/ holds nothing outside what the build compiles
    const all = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => join(ROOT, "src", f));
    expect(files.sort()).toEqual(all.sort());
  });
});
