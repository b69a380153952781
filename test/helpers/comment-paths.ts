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

/** Tokens after which a "/" divides; after any other, it opens a regular expression. */
const ENDS_EXPRESSION = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);

/**
 * Every comment of a source text with the line it starts on, read by TypeScript's scanner (a
 * tenth of a parse's time): template literals are followed through their ${…} parts and a "/" is
 * taken for a regular expression where no expression ends before it, as the parser would.
 */
export function comments(_fileName: string, text: string): { line: number; text: string }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: { line: number; text: string }[] = [];
  const templates: number[] = [];
  let braces = 0;
  let last = ts.SyntaxKind.Unknown;
  let line = 1;
  let counted = 0;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      const pos = scanner.getTokenStart();
      for (; counted < pos; counted++) if (text.charCodeAt(counted) === 10) line++;
      found.push({ line, text: scanner.getTokenText() });
      continue;
    }
    if (kind === ts.SyntaxKind.NewLineTrivia || kind === ts.SyntaxKind.WhitespaceTrivia) continue;
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_EXPRESSION.has(last)) kind = scanner.reScanSlashToken();
    else if (kind === ts.SyntaxKind.TemplateHead) templates.push(++braces);
    else if (kind === ts.SyntaxKind.OpenBraceToken) braces++;
    else if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.at(-1) !== braces) braces--;
      // the end of a template's ${…}: its text goes on to a TemplateMiddle (another ${, the same depth) or its tail
      else if ((kind = scanner.reScanTemplateToken(false)) === ts.SyntaxKind.TemplateTail) {
        templates.pop();
        braces--;
      }
    }
    last = kind;
  }
  return found;
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

/** The repository's files, and their names, that a comment's path is looked up in. */
export interface RepoFiles {
  paths: readonly string[];
  names: ReadonlySet<string>;
}

/** Whether `token`, named in a comment of `file`, is a path of the repository at `root`. */
export function resolves(root: string, file: string, token: string, files: RepoFiles): boolean {
  const wanted = token.replace(/\/$/, "");
  const candidates = bases(root, file).map((b) => join(b, wanted));
  if (wanted.includes("*")) {
    const glob = (c: string) => new RegExp(`^${c.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/|$)`);
    return candidates.some((c) => files.paths.some((f) => glob(c).test(f)));
  }
  if (candidates.some((c) => existsSync(c) || existsSync(c.replace(/\.js$/, ".ts")))) return true;
  // a bare file name (lookups.ts) names whichever file of the repository carries it
  return !wanted.includes("/") && files.names.has(wanted);
}

/** A comment that points outside the repository: to the machine's shared folders. */
const OUTSIDE = /(?<![\w.-])\/(?:work|tmp|home)\/[^\s),;]*/;

/** Every comment of the repository at `root` that names a path it does not have, as "file:line: token". */
export function stalePaths(root: string): string[] {
  const files = COMMENTED_FOLDERS.flatMap((f) => codeFiles(join(root, f)));
  files.push(...readdirSync(root).filter((n) => /\.(ts|js|mjs)$/.test(n)).map((n) => join(root, n)));
  const paths = allFiles(root);
  const all: RepoFiles = { paths, names: new Set(paths.map((f) => basename(f))) };
  const found: string[] = [];
  for (const file of files) {
    const where = relative(root, file).split("\\").join("/");
    const text = readFileSync(file, "utf8");
    // parsed only when some text of it looks like a path: most files name none
    if (pathTokens(text).length === 0 && !OUTSIDE.test(text)) continue;
    for (const c of comments(file, text)) {
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
