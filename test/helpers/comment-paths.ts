// The paths the project's comments name, and which of them name nothing in the repository: a comment
// that sends a reader to a file that moved or never was is worse than none.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import ts from "typescript";

/** The folders whose code is read for comments (tests, benches and the soak included). */
export const COMMENTED_FOLDERS = ["src", "test", "bench", "soak"] as const;

const SKIP = new Set(["node_modules", "dist", "output", "fixtures", ".git"]);

/** Every .ts/.js file below `dir` (fixtures and build output left out). */
export function codeFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : codeFiles(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every comment of a source text, each once, with the line it starts on. */
export function comments(fileName: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, string>();
  const collect = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  collect(ts.getLeadingCommentRanges(text, 0));
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...seen.entries()]
    .sort(([a], [b]) => a - b)
    .map(([pos, body]) => ({ line: source.getLineAndCharacterOfPosition(pos).line + 1, text: body }));
}

// A path-like token: folders and a file (src/store/store.ts, docs/bench.md), a folder alone
// (src/contract/, test/helpers), or a source or document file's name (lookups.ts, README.md); a "*"
// stands for any part of a name (src/cli/*-options.ts). Output files (summary.csv) are not paths.
const ROOTS = "(?:src|docs|test|bench|soak|input|\\.ci)";
const PATH_TOKEN = new RegExp(
  [
    `(?<![\\w./*-])${ROOTS}/[\\w./*-]*[\\w/*]`,
    `(?<![\\w./*-])(?:\\.{1,2}/)?(?:[\\w*-]+/)*[\\w.*-]+\\.(?:ts|md)\\b`,
  ].join("|"),
  "g",
);

/** The path-like tokens of one comment (a trailing full stop is punctuation, not the path's). */
export function pathTokens(comment: string): string[] {
  return [...comment.matchAll(PATH_TOKEN)].map((m) => m[0].replace(/[.]+$/, ""));
}

/** The folders a path in a comment of `file` may be relative to: the file's own and each above it. */
function bases(root: string, file: string): string[] {
  const out = [join(root, "src")];
  for (let dir = dirname(file); dir.startsWith(root); dir = dirname(dir)) {
    out.push(dir);
    if (dir === root) break;
  }
  return out;
}

/** Whether `token`, named in a comment of `file`, is a path of the repository at `root` (all of whose files are `files`). */
export function resolves(root: string, file: string, token: string, files: readonly string[]): boolean {
  const wanted = token.replace(/\/$/, "");
  const candidates = bases(root, file).map((b) => join(b, wanted));
  if (wanted.includes("*")) {
    const glob = (c: string) => new RegExp(`^${c.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/|$)`);
    return candidates.some((c) => files.some((f) => glob(c).test(f)));
  }
  if (candidates.some((c) => existsSync(c) || existsSync(c.replace(/\.js$/, ".ts")))) return true;
  // a bare file name (lookups.ts) names whichever file of the repository carries it
  return !wanted.includes("/") && files.some((f) => basename(f) === wanted);
}

/** A comment that points outside the repository: to the machine's shared folders. */
const OUTSIDE = /(?<![\w.-])\/(?:work|tmp|home)\/[^\s),;]*/;

/** Every comment of the repository at `root` that names a path it does not have, as "file:line: token". */
export function stalePaths(root: string): string[] {
  const files = COMMENTED_FOLDERS.flatMap((f) => codeFiles(join(root, f)));
  files.push(...readdirSync(root).filter((n) => /\.(ts|js|mjs)$/.test(n)).map((n) => join(root, n)));
  const all = allFiles(root);
  const found: string[] = [];
  for (const file of files) {
    const where = relative(root, file).split("\\").join("/");
    for (const c of comments(file, readFileSync(file, "utf8"))) {
      if (OUTSIDE.test(c.text)) found.push(`${where}:${c.line}: ${c.text.match(OUTSIDE)![0]}`);
      for (const token of pathTokens(c.text))
        if (!resolves(root, file, token, all)) found.push(`${where}:${c.line}: ${token}`);
    }
  }
  return found;
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? allFiles(path) : [path];
  });
}
